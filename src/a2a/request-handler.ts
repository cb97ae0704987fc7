/**
 * The SDK's request handler, plus one rule the x402 flow needs: a buyer
 * whose answer got lost repeats the same payment message on the task, which
 * by then is completed (terminal). The SDK refuses any message to a terminal
 * task; when the message carries exactly the payment that completed it, the
 * stored task (result and receipt) is the answer. Nothing is sent to the
 * gate, so nothing can be settled twice. Any other message to a finished
 * task is refused as the SDK does.
 *
 * And one the task store needs: a message that would open a paid task for a
 * client whose tasks waiting for payment already fill its budget (or the
 * store's) is refused with the store's JSON-RPC error (-32029) before the
 * skill runs, instead of after its arguments were validated and the task
 * built (the store would refuse that task when the SDK saves it).
 */
import type { AgentCard, Message, SendMessageRequest, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { DefaultRequestHandler, type AgentExecutor, type ServerCallContext } from '@a2a-js/sdk/server';
import { canonicalJson } from '../foundation/canonical-json.js';
import { skillCallOf } from './executor.js';
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
    /** Skills whose call opens a task waiting for payment (the catalog's entries). */
    private readonly paidSkills: ReadonlySet<string>,
  ) {
    // No bus outlives its message: each message is answered whole, so an input-required task needs no live bus.
    super(card, tasks, executor, undefined, undefined, undefined, undefined, undefined, { keepBusAliveStates: [] });
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const replay = await this.completedByThisPayment(params.message, context);
    if (replay) return replay;
    const refused = this.overBudget(params.message, context);
    if (refused) throw refused;
    return super.sendMessage(params, context);
  }

  /** The store's refusal of the paid task this message would open, if its client has no room for it now. */
  private overBudget(message: Message | undefined, context: ServerCallContext) {
    if (!message || message.taskId) return undefined;
    const call = skillCallOf(message);
    if (!call || !this.paidSkills.has(call.skill)) return undefined;
    // The stored task holds these arguments as JSON: at least their strings' characters and quotes.
    return this.tasks.refusalFor(context, jsonBytesAtLeast(call.args));
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

/**
 * A lower bound on the bytes of `JSON.stringify(value)`: every string's UTF-16 length plus its quotes (a code
 * unit is at least one UTF-8 byte, a surrogate pair four, a lone surrogate an escape). A loop, so any depth is safe.
 */
function jsonBytesAtLeast(value: unknown): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') n += v.length + 2;
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) (n += k.length + 2), stack.push(x);
  }
  return n;
}
