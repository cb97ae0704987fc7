/**
 * The A2A agent: one message names a skill (`metadata.skill`) and carries its
 * arguments in a data part. Free skills are the modules' free routes that
 * declare an agent tool, called in process at the caller's origin, and answer
 * with a message. Paid skills are the catalog entries and go through the one
 * paid flow (`ctx.flow`): the input is validated before any payment step, an
 * unpaid call leaves the task input-required with the x402 requirement, and a
 * message carrying the signed payment on that task completes it with the
 * result artifact and the receipt.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { Capability } from '../catalog/capability.js';
import { makeInputReader } from '../catalog/input-reader.js';
import { A2A_SKILL_KEY, A2A_X402_EXTENSION_URI } from '../discovery/documents.js';
import { errorBody, type ErrorBody } from '../errors.js';
import { callFreeTool, freeToolsOf, type ToolCaller } from '../http/free-routes.js';
import { clientKeyOf } from '../http/forwarded.js';
import type { FreeTool, ModuleContext } from '../module.js';
import type { PaymentWire } from '../payments/paid-flow.js';
import { boundedTask, TASK_CLIENT } from './task-store.js';
import { paidStep, X402_PAYLOAD, X402_SIGN_IN, X402_SIGNED_OFFER, X402_STATUS } from './x402-extension.js';

/** What the HTTP side hands each call through `ServerCallContext.state`: the app (for free skills) and the caller's origin. */
export const CALL_SCOPE = 'agent-pay-service/a2a-call-scope';
/** The app (for free skills) and who the call is for (origin, connection, X-Forwarded-For). */
export interface CallScope extends ToolCaller {
  app: Hono;
}

interface PaidSkill {
  cap: Capability;
  reader: ReturnType<typeof makeInputReader>;
}

export interface SkillTable {
  paid: Map<string, PaidSkill>;
  free: Map<string, FreeTool>;
}

/** The same skills the agent card lists: catalog ids and free tool names. */
export function skillTable(ctx: ModuleContext): SkillTable {
  return {
    paid: new Map(ctx.catalog.map((cap) => [cap.id, { cap, reader: makeInputReader(cap) }])),
    free: new Map(freeToolsOf(ctx).map((t) => [t.name, t])),
  };
}

/** Where A2A carries payments (the message's metadata), in the words of its refusals; it does not speak MPP. */
const A2A_WIRE: PaymentWire = {
  x402Unreadable: { message: `metadata["${X402_PAYLOAD}"] must be an x402 v2 PaymentPayload object.`, details: [] },
  // A malformed payment is refused like a malformed PAYMENT-SIGNATURE header; the requirement is offered again.
  requirementWithRefusal: true,
  offerPath: `/metadata/${X402_SIGNED_OFFER}`,
};

/** A skill and its arguments, as one message states them. */
export interface SkillCall {
  skill: string;
  args: unknown;
}

export function skillCallOf(message: Message): SkillCall | undefined {
  const skill = message.metadata?.[A2A_SKILL_KEY];
  if (typeof skill !== 'string') return undefined;
  const data = message.parts.find((p) => p.content?.$case === 'data');
  return { skill, args: data?.content?.$case === 'data' ? data.content.value : undefined };
}

/** A task's call is the one its first message made; later messages only pay for it. */
export function callOfTask(task: Task): SkillCall | undefined {
  for (const m of task.history) if (m.role === Role.ROLE_USER) return skillCallOf(m);
  return undefined;
}

const dataPart = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class ServiceAgentExecutor implements AgentExecutor {
  private table: SkillTable | undefined;

  constructor(private readonly ctx: ModuleContext) {}

  /** Built on first use, when every module's routes exist. */
  private skills(): SkillTable {
    return (this.table ??= skillTable(this.ctx));
  }

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const scope = rc.context.state.get(CALL_SCOPE) as CallScope;
    // Whose budget a new task counts against in the task store: the client's key, as the rate limiter counts it.
    rc.context.state.set(TASK_CLIENT, clientKeyOf(scope?.env, scope?.forwardedFor, this.ctx.config.operations.trustProxy));
    try {
      await this.dispatch(rc, bus, scope);
    } catch (e) {
      // Fail closed with our code: the SDK's own handler of a throw would copy the whole message into the task.
      this.ctx.log.error({ err: e instanceof Error ? e.message : String(e) }, 'a2a: executor failed');
      this.finish(rc, bus, TaskState.TASK_STATE_FAILED, errorBody('service_unavailable', 'The agent could not answer this message; nothing was charged by it. Retry later.'));
    }
  }

  private async dispatch(rc: RequestContext, bus: ExecutionEventBus, scope: CallScope): Promise<void> {
    const call = rc.task ? callOfTask(rc.task) : skillCallOf(rc.userMessage);
    if (!call) {
      return this.finish(rc, bus, TaskState.TASK_STATE_REJECTED, errorBody('invalid_request', `Name a skill in message.metadata.${A2A_SKILL_KEY} (one of the agent card's skill ids) and put its arguments in a data part.`, [{ path: `/metadata/${A2A_SKILL_KEY}`, rule: 'required' }]));
    }
    const t = this.skills();
    const paid = t.paid.get(call.skill);
    if (paid) return this.runPaid(rc, bus, paid, call, scope);
    const free = t.free.get(call.skill);
    if (free) return this.runFree(rc, bus, free, call, scope);
    return this.finish(rc, bus, TaskState.TASK_STATE_REJECTED, errorBody('not_found', `No skill named ${JSON.stringify(clip(call.skill, 80))}; the agent card lists them.`, [{ path: `/metadata/${A2A_SKILL_KEY}`, rule: 'enum' }]));
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    // Nothing runs between messages (each message is answered whole), so there is no work to stop.
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date(this.ctx.now()).toISOString() }, metadata: undefined }));
    bus.finished();
  }

  /** In process, at the caller's real origin: the answers carry absolute URLs built from it. */
  private async runFree(rc: RequestContext, bus: ExecutionEventBus, tool: FreeTool, call: SkillCall, scope: CallScope): Promise<void> {
    const args = call.args ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return this.finish(rc, bus, TaskState.TASK_STATE_REJECTED, errorBody('invalid_request', 'The data part must be a JSON object of the skill\'s arguments.', [{ path: '/parts', rule: 'type' }]));
    }
    const { status, text } = await callFreeTool(scope.app, tool, args as Record<string, unknown>, scope);
    const json = parseJson(text);
    if (status >= 400) {
      const body = (json as ErrorBody | undefined)?.error ? (json as ErrorBody) : errorBody('service_unavailable', text.slice(0, 500));
      return this.finish(rc, bus, status >= 500 ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_REJECTED, body);
    }
    bus.publish(AgentEvent.message(this.agentMessage(rc, [json === undefined ? textPart(text) : dataPart(json)], undefined, false)));
    bus.finished();
  }

  private async runPaid(rc: RequestContext, bus: ExecutionEventBus, skill: PaidSkill, call: SkillCall, scope: CallScope): Promise<void> {
    // The same size bound as the skill's HTTP body, measured before the arguments are copied or validated: a message
    // of many small values costs what the skill's largest body costs, not what the A2A envelope allows.
    if (!jsonWithin(call.args ?? {}, skill.reader.limit)) {
      return this.finish(rc, bus, TaskState.TASK_STATE_REJECTED, errorBody('payload_too_large', `The arguments of ${skill.cap.id} exceed ${skill.reader.limit} bytes of JSON (its HTTP body limit).`, [{ path: '/parts', rule: 'maxBytes' }]));
    }
    const meta = rc.userMessage.metadata ?? {};
    // The extension is active on every answer about payment (not on one that refuses the input itself).
    const activate = () => {
      if (rc.context.requestedExtensions?.includes(A2A_X402_EXTENSION_URI)) rc.context.addActivatedExtension(A2A_X402_EXTENSION_URI);
    };
    if (meta[X402_STATUS] === 'payment-rejected') {
      // Validate first: an invalid input never gets a payment requirement, let alone a payment step.
      const parsed = skill.reader.fromValue(structuredClone(call.args ?? {}));
      if (!parsed.ok) return this.finish(rc, bus, TaskState.TASK_STATE_REJECTED, parsed.body as ErrorBody);
      activate();
      return this.publishTask(rc, bus, TaskState.TASK_STATE_CANCELED, [textPart('The buyer declined the payment requirement; nothing was charged.')], { [X402_STATUS]: 'payment-rejected' }, []);
    }
    // A router quote's signed offer for this skill and these arguments (as sent), on each message that asks or pays (as HTTP's header).
    const signedOffer = meta[X402_SIGNED_OFFER];
    const trustProxy = this.ctx.config.operations.trustProxy;
    const paid = await this.ctx.flow.answer(skill.cap, {
      wire: A2A_WIRE,
      origin: scope.base,
      input: { value: call.args ?? {} },
      x402: meta[X402_PAYLOAD],
      signIn: meta[X402_SIGN_IN],
      // Wrong payment-identifiers are limited per client, counted as on HTTP and MCP.
      client: () => clientKeyOf(scope.env, scope.forwardedFor, trustProxy),
      offer: signedOffer === undefined ? undefined : { signed: signedOffer, body: call.args ?? {} },
    });
    if (paid.kind !== 'invalid' || paid.about === 'payment') activate();
    if (paid.kind === 'invalid' && !paid.requirement) return this.finish(rc, bus, TaskState.TASK_STATE_REJECTED, paid.body);
    const step = paidStep(paid);
    if (step.state === 'completed') {
      const artifact: Artifact = { artifactId: `${rc.taskId}-result`, name: 'result', description: skill.cap.title, parts: [dataPart(JSON.parse(step.resultJson))], metadata: undefined, extensions: [] };
      return this.publishTask(rc, bus, TaskState.TASK_STATE_COMPLETED, [textPart(step.text)], step.metadata, [artifact]);
    }
    const state = step.state === 'failed' ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_INPUT_REQUIRED;
    return this.publishTask(rc, bus, state, [textPart(step.text)], step.metadata, []);
  }

  /** A refusal or fault: the task ends with our error body as its data part and the code in the metadata. */
  private finish(rc: RequestContext, bus: ExecutionEventBus, state: TaskState, body: ErrorBody): void {
    this.publishTask(rc, bus, state, [textPart(body.error.message), dataPart(body)], { error_code: body.error.code }, []);
  }

  private publishTask(rc: RequestContext, bus: ExecutionEventBus, state: TaskState, parts: Part[], metadata: Record<string, unknown>, artifacts: Artifact[]): void {
    const call = rc.task ? callOfTask(rc.task) : skillCallOf(rc.userMessage);
    const task: Task = {
      id: rc.taskId,
      contextId: rc.contextId,
      status: { state, message: this.agentMessage(rc, parts, metadata, true), timestamp: new Date(this.ctx.now()).toISOString() },
      artifacts,
      history: rc.task?.history ?? [rc.userMessage],
      metadata: call && this.knows(call.skill) ? { [A2A_SKILL_KEY]: call.skill } : undefined,
    };
    // Published in the form the store keeps: the SDK copies what is published, and a rejected message must not be copied whole.
    bus.publish(AgentEvent.task(boundedTask(task)));
    bus.finished();
  }

  private knows(skill: string): boolean {
    const t = this.skills();
    return t.paid.has(skill) || t.free.has(skill);
  }

  private agentMessage(rc: RequestContext, parts: Part[], metadata: Record<string, unknown> | undefined, inTask: boolean): Message {
    return { messageId: randomUUID(), contextId: rc.contextId, taskId: inTask ? rc.taskId : '', role: Role.ROLE_AGENT, parts, metadata, extensions: [], referenceTaskIds: [] };
  }
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * Whether `value` written as JSON takes at most `limit` bytes. Walks the
 * value and stops as soon as the count passes the limit, so a huge value
 * costs no more than `limit` to refuse.
 */
export function jsonWithin(value: unknown, limit: number): boolean {
  let used = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') used += v.length > limit ? v.length : Buffer.byteLength(JSON.stringify(v));
    else if (Array.isArray(v)) {
      used += 1 + v.length;
      for (let i = v.length - 1; i >= 0 && used <= limit; i--) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      used += 1 + keys.length;
      for (let i = keys.length - 1; i >= 0 && used <= limit; i--) {
        used += keys[i]!.length > limit ? keys[i]!.length : Buffer.byteLength(JSON.stringify(keys[i])) + 1;
        stack.push((v as Record<string, unknown>)[keys[i]!]);
      }
    } else used += v === undefined ? 0 : String(v).length;
    if (used > limit) return false;
  }
  return true;
}
