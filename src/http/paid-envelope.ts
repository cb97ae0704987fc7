/**
 * Paid routes are registered before the middleware of every other route, so
 * a paid call (the 402 path above all) runs none of what does not apply to it
 * (rate limit, ETag, gzip, the free-route body limit) and gets what does —
 * request id, metrics and log line, CORS, the forwarded origin, its body
 * limit — from one handler, not a chain of middleware: each link of Hono's
 * chain is an async step of its own. The answer headers are put by the route
 * on the challenge it builds (see AnswerHeaders), else on the Node response
 * once the route has answered (see PaidAnswerHeaders): Hono's cors and
 * requestId write through `c.res`/`c.header`, which makes Hono copy every 402
 * into a fresh Response (materialising the body stream), and requestId alone
 * loses its header on a Response the route builds (docs/decisions/0022). CORS preflights
 * (OPTIONS) and other methods on these paths still go through the shared
 * middleware (src/http/envelope.ts).
 */
import type { Context, Hono } from 'hono';
import { timing } from 'hono/timing';
import type { Capability } from '../catalog/capability.js';
import { DEFAULT_MAX_BODY_BYTES } from '../catalog/input-reader.js';
import { PaidAnswerHeaders, requestIdOf } from './answer-headers.js';
import { bodyLimitCheck } from './body-limit.js';
import { noNext, type RequestEnvelope } from './envelope.js';
import { claimOrigin } from './own-origin.js';
import { paidRoute, type AnswerHeaders, type PaidRouteOptions } from './paid-route.js';
import { authorizationHeader, requestHeader } from './request-header.js';

/** Each capability of the catalog as a paid route (paidRoute with `opts`), in its envelope. */
export function registerPaidRoutes(app: Hono, catalog: readonly Capability[], opts: PaidRouteOptions, env: RequestEnvelope): void {
  const origins = env.corsAllowOrigin;
  const forwarded = env.forwarded;
  const serverTiming = timing({ total: false, autoEnd: false, enabled: (c) => (c.get('metric')?.headers.length ?? 0) > 0 });
  for (const cap of catalog) {
    const handler = paidRoute(cap, opts);
    const limit = cap.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const serve = (c: Context, answer: AnswerHeaders): Promise<Response> => {
      // Once a trusted proxy's host is in the URL: the origin the answer names (never a host not ours).
      claimOrigin(c, env.origins);
      const check = bodyLimitCheck(c, limit);
      return check ? check.then((early) => early || handler(c, answer)) : handler(c, answer);
    };
    // Behind a trusted proxy: the forwarded origin first.
    const serveForwarded = async (c: Context, answer: AnswerHeaders): Promise<Response> => {
      await forwarded!(c, noNext);
      return serve(c, answer);
    };
    // A paid attempt (PAYMENT-SIGNATURE, or MPP's Authorization or Payment-Authorization) reports where its time went as Server-Timing, through Hono's
    // timing middleware, when it is delivered (ledger, verify, handler, settle, chain); no other answer
    // carries one, and the unpaid 402 does not run the middleware at all.
    const serveTimed = async (c: Context, answer: AnswerHeaders): Promise<Response> => {
      await serverTiming(c, async () => {
        c.res = await (forwarded ? serveForwarded(c, answer) : serve(c, answer));
      });
      return c.res;
    };
    app.on(cap.method, cap.path, async (c) => {
      const id = requestIdOf(c);
      c.set('requestId', id);
      const answer = new PaidAnswerHeaders(c, id, origins);
      const start = performance.now();
      let res: Response;
      try {
        // A paid attempt over either protocol (x402's PAYMENT-SIGNATURE, MPP's Authorization or Payment-Authorization) is timed.
        const paying = requestHeader(c, 'payment-signature') !== undefined || authorizationHeader(c) !== undefined || requestHeader(c, 'payment-authorization') !== undefined;
        const run = paying ? serveTimed : forwarded ? serveForwarded : serve;
        res = await run(c, answer);
      } catch (e) {
        res = env.failClosed(e, c);
      }
      env.answered(c, id, cap.path, res.status, start);
      answer.putOnAnswer(c, res);
      return res;
    });
  }
}
