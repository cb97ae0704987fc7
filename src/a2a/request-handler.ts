/**
 * The SDK's request handler, plus one rule the x402 flow needs: a buyer
 * whose answer got lost repeats the same payment message on the task, which
 * by then is completed (terminal). The SDK refuses any message to a terminal
 * task; when the message carries exactly the payment that completed it, the
 * stored task (result and receipt) is the answer. Nothing is sent to the
 * gate, so nothing can be settled twice. Any other message to a finished
 * task is refused as the SDK does.
 */
import type { AgentCard, Message, SendMessageRequest, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { DefaultRequestHandler, type AgentExecutor, type ServerCallContext } from '@a2a-js/sdk/server';
import { canonicalJson } from '../payments/canonical-json.js';
import type { BoundedTaskStore } from './task-store.js';
import { X402_PAYLOAD } from './x402-extension.js';

function paymentOf(m: Message): string | undefined {
  const p = m.metadata?.[X402_PAYLOAD];
  return p !== null && typeof p === 'object' ? canonicalJson(p) : undefined;
}

export class PaidTaskRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: BoundedTaskStore,
    executor: AgentExecutor,
  ) {
    // No bus outlives its message: each message is answered whole, so an input-required task needs no live bus.
    super(card, tasks, executor, undefined, undefined, undefined, undefined, undefined, { keepBusAliveStates: [] });
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const replay = await this.completedByThisPayment(params.message, context);
    return replay ?? super.sendMessage(params, context);
  }

  private async completedByThisPayment(message: Message | undefined, context: ServerCallContext): Promise<Task | undefined> {
    if (!message?.taskId) return undefined;
    const payment = paymentOf(message);
    if (payment === undefined) return undefined;
    const task = await this.tasks.load(message.taskId, context);
    if (task?.status?.state !== TaskState.TASK_STATE_COMPLETED) return undefined;
    // The completing message is the last user message of the history.
    const paidWith = [...task.history].reverse().find((m) => paymentOf(m) !== undefined);
    return paidWith && paymentOf(paidWith) === payment ? task : undefined;
  }
}
