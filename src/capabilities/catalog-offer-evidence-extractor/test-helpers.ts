/** Helpers shared by the extractor's tests (not used at run time). */
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { run } from './index.js';
import { parseScriptText, toPlain } from './lenient-json.js';
import { inputSchema, outputSchema } from './schema.js';
import type { Evidence, ExtractorRequest, ExtractorResponse, ProductOut } from './types.js';

type AjvCtor = new (opts: Record<string, unknown>) => {
  compile: (s: unknown) => ((d: unknown) => boolean) & { errors?: unknown };
};
const AjvClass = ((Ajv2020 as unknown as { default?: AjvCtor }).default ?? Ajv2020) as unknown as AjvCtor;
const ajv = new AjvClass({ allErrors: true, strict: false });
const fmt = ((addFormats as unknown as { default?: (a: unknown) => void }).default ?? addFormats) as unknown as (a: unknown) => void;
fmt(ajv);
export const validateOutput = ajv.compile(outputSchema);
export const validateInput = ajv.compile(inputSchema);

export function ld(json: string, type = 'application/ld+json'): string {
  return `<script type="${type}">${json}</script>`;
}

export function page(...parts: string[]): string {
  return `<!doctype html><html><head><title>t</title>${parts.join('\n')}</head><body><p>x</p></body></html>`;
}

export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const tok = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(tok)];
    else if (cur && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, tok)) cur = (cur as Record<string, unknown>)[tok];
    else return undefined;
  }
  return cur;
}

function collectSources(v: unknown, out: Evidence[]): void {
  if (Array.isArray(v)) {
    for (const x of v) collectSources(x, out);
    return;
  }
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'sources' && Array.isArray(x)) out.push(...(x as Evidence[]));
      else collectSources(x, out);
    }
  }
}

/**
 * Check everything a buyer could check: schema validity, script hashes over the stated byte
 * ranges, and that every cited pointer exists in the JSON parsed from its script (strict
 * scripts with JSON.parse itself).
 */
export function verify(html: string, out: ExtractorResponse): void {
  const ok = validateOutput(out);
  assert.ok(ok, JSON.stringify(validateOutput.errors, null, 1));
  const buf = Buffer.from(html, 'utf8');
  assert.equal(out.evidence.input_sha256, createHash('sha256').update(buf).digest('hex'));
  const docs: unknown[] = [];
  for (const s of out.scripts) {
    const bytes = buf.subarray(s.byte_offset, s.byte_offset + s.byte_length);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), s.sha256, `script ${s.index} hash`);
    assert.equal(bytes.toString('utf8'), html.slice(s.char_offset, s.char_offset + s.char_length));
    const text = bytes.toString('utf8');
    if (s.parse_mode === 'strict') docs.push(JSON.parse(text));
    else if (s.parse_mode === 'lenient') {
      const p = parseScriptText(text);
      assert.notEqual(p.mode, 'failed', `script ${s.index} should re-parse`);
      docs.push(p.value ? toPlain(p.value) : undefined);
    } else docs.push(undefined);
  }
  const srcs: Evidence[] = [];
  collectSources(out.products, srcs);
  for (const e of srcs) {
    assert.ok(e.script >= 0 && e.script < out.scripts.length, `script index ${e.script}`);
    const d = docs[e.script];
    assert.notEqual(resolvePointer(d, e.pointer), undefined, `pointer ${e.pointer} in script ${e.script}`);
  }
  for (const w of out.warnings) {
    if (w.script !== null && w.pointer !== null && out.scripts[w.script]?.parse_mode === 'strict') {
      assert.notEqual(resolvePointer(docs[w.script], w.pointer), undefined, `warning pointer ${w.pointer}`);
    }
  }
}

export function extract(html: string, base_url?: string): ExtractorResponse {
  const req: ExtractorRequest = base_url === undefined ? { html } : { html, base_url };
  const out = run(req);
  verify(html, out);
  return out;
}

export function only(out: ExtractorResponse): ProductOut {
  assert.equal(out.products.length, 1, `expected one product, got ${out.products.length}`);
  return out.products[0] as ProductOut;
}

export function warningCodes(out: ExtractorResponse): string[] {
  return out.warnings.map((w) => w.code);
}
