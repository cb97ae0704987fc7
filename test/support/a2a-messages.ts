/**
 * A2A v1.0 messages as the official SDK client sends them, for the A2A tests:
 * a user message carrying metadata and either one data part or a text part.
 */
import { randomUUID } from 'node:crypto';
import { Role, type Message, type Task } from '@a2a-js/sdk';

/** The a2a-x402 extension (v0.2) URI a paying client activates. */
export const X402_URI = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';

export function userMessage(metadata: Record<string, unknown>, data?: unknown, taskId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId,
    role: Role.ROLE_USER,
    parts: [
      data === undefined
        ? { content: { $case: 'text', value: 'Here is the payment.' }, metadata: undefined, filename: '', mediaType: 'text/plain' }
        : { content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' },
    ],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

export const isTask = (r: Message | Task): r is Task => 'status' in r;
