/**
 * The reference, alone in its own process: @x402/hono's paymentMiddleware
 * with the SDK's HTTPFacilitatorClient in front of the contrast route, whose
 * handler computes the same answer as ours. Configured by one JSON value in
 * BENCH_REFERENCE (X402HonoOptions without `answer`); sends `{url}` over IPC
 * when it listens and stops with its parent.
 */
import { calculateContrast } from '../src/capabilities/accessibility-contrast-calculator/contrast.js';
import { startX402HonoRoute, type X402HonoOptions } from './http.js';

const options = JSON.parse(process.env.BENCH_REFERENCE ?? '') as Omit<X402HonoOptions, 'answer'>;
const server = await startX402HonoRoute({ ...options, answer: (body) => calculateContrast(body as Parameters<typeof calculateContrast>[0]) });
process.send!({ url: server.url });
const stop = () => void server.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('disconnect', stop);
