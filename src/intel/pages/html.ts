/**
 * Safe markup for the pages: every interpolated value goes through `html```,
 * which escapes it unless it is already markup built the same way.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for use in HTML element content and in double- or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/** Markup that is already safe: only `html``…``  and `raw()` make one. */
export class Html {
  constructor(readonly text: string) {}
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(p: Part): string {
  if (p === null || p === undefined || p === false || p === true) return '';
  if (p instanceof Html) return p.text;
  if (Array.isArray(p)) return p.map(render).join('');
  return escapeHtml(String(p));
}

/** A template whose interpolations are escaped unless they are Html; arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** For constant markup written in this file only (the stylesheet). */
export function raw(text: string): Html {
  return new Html(text);
}
