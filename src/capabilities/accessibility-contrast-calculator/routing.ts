/** How the outcome router recognises a contrast objective and builds its native bodies. */
import type { ErrorDetail } from '../../errors.js';
import { has, isObject, need, notAList, done, type RoutingDescriptor, type UnitDraft } from '../../catalog/routing.js';
import { asksColourConversion, parseColour, readColours, readLargeText } from '../../catalog/objective-text.js';

/** A colour written as people write it (#rgb, a CSS name, rgb()) as the native #rrggbb; anything else unchanged for validation to name. */
function nativeColour(v: unknown, normalised: string[]): unknown {
  if (typeof v !== 'string') return v;
  const c = parseColour(v);
  if (c === undefined || c === v) return v;
  normalised.push(`${v} → ${c}`);
  return c;
}

export const contrastRouting: RoutingDescriptor = {
  outcome: 'WCAG 2.x sRGB contrast for one or many colour pairs (#RRGGBB, #RGB, CSS names or rgb() in the request; one paid call per pair).',
  names: ['contrast calculator', 'contrast checker', 'wcag contrast', 'colour contrast', 'color contrast'],
  keywords: [/\bcontrast\b/, /\bwcag\b/, /\ba11y\b/, /\b(?:legib|readab)\w*\b.*\bcolou?rs?\b/, /\bcolou?r (?:pairs?|combinations?)\b/],
  terms: {
    en: ['contrast*', 'wcag', 'a11y', 'colour pair*', 'color pair*', 'text legibility', 'readable text'],
    es: ['contraste*', 'relacion de contraste', 'legibilidad', 'accesibilidad del color', 'accesibilidad de los colores', 'colores accesibles'],
    pt: ['contraste*', 'legibilidade', 'acessibilidade de cor*', 'acessibilidade das cores', 'cores acessiveis'],
    fr: ['contraste*', 'lisibilite', 'accessibilite des couleurs', 'couleurs accessibles'],
    de: ['kontrast*', 'farbkontrast*', 'lesbarkeit', 'barrierefreie farben', 'farbpaar*'],
    it: ['contrasto', 'contrasti', 'rapporto di contrasto', 'leggibilita', 'accessibilita dei colori', 'colori accessibili'],
    nl: ['contrast*', 'kleurcontrast*', 'leesbaarheid', 'toegankelijke kleuren'],
    zh: ['对比度', '對比度', '颜色对比', '顏色對比', '色彩对比', '可读性', '可讀性', '无障碍配色'],
    ja: ['コントラスト', 'コントラスト比', '可読性', '読みやすさ', '配色のアクセシビリティ'],
    ko: ['명암비', '명암 대비', '색상 대비', '색 대비', '대비율', '콘트라스트', '가독성'],
  },
  textSignal(objective) {
    // "convert #ff8800 to CMYK" names a colour, but asks for something this outcome does not do.
    if (asksColourConversion(objective)) return undefined;
    const r = readColours(objective);
    if (r.explicit) return 'colours (#RRGGBB, #RGB or rgb()) in the objective';
    if (r.unread?.length) return `colour names in the objective (${r.unread.join(', ')})`;
    return r.pairs.length ? 'a pair of named colours in the objective ("white text on navy")' : undefined;
  },
  fieldAliases: { fg: 'foreground', bg: 'background', colour_pairs: 'pairs', color_pairs: 'pairs' },
  reads: ['foreground', 'background', 'large_text', 'pairs'],
  requiredInputs: ['foreground', 'background'],
  optionalInputs: ['large_text', 'pairs'],
  batch:
    'inputs.pairs: an array of {foreground, background, large_text?}, ["#RRGGBB", "#RRGGBB"] or "#RRGGBB on #RRGGBB"; or several pairs written in the objective ("#000000 on #ffffff and #777777 on #ffffff", "#111111, #222222 and #333333 on #ffffff"). One step per pair.',
  detect: (inputs) => has(inputs, 'foreground') || has(inputs, 'background') || has(inputs, 'pairs'),
  evident: (inputs) =>
    Array.isArray(inputs.pairs) ||
    (typeof inputs.foreground === 'string' && typeof inputs.background === 'string' && parseColour(inputs.foreground) !== undefined && parseColour(inputs.background) !== undefined),
  extract(ctx) {
    const { inputs, at } = ctx;
    const units: UnitDraft[] = [];
    const missing: ErrorDetail[] = [];
    const invalid: ErrorDetail[] = [];
    const assumptions: string[] = [];
    const normalised: string[] = [];
    const worded = ctx.fromItems ? undefined : readLargeText(ctx.objective);
    let defaulted = false;
    const largeText = (own: unknown): unknown => {
      if (own !== undefined) return own;
      if (inputs.large_text !== undefined) return inputs.large_text;
      if (worded !== undefined) return worded;
      defaulted = true;
      return false;
    };
    if (has(inputs, 'pairs')) {
      if (!Array.isArray(inputs.pairs)) return notAList(at, 'pairs', 'colour pairs');
      inputs.pairs.forEach((p, i) => {
        const here = `${at}/pairs/${i}`;
        let fg: unknown;
        let bg: unknown;
        let own: unknown;
        if (typeof p === 'string') {
          const r = readColours(p, { loose: true });
          if (r.pairs.length !== 1) {
            invalid.push({ path: here, rule: 'colour_pair', message: 'write one pair as "#RRGGBB on #RRGGBB" (or #RGB, CSS names, rgb())' });
            return;
          }
          fg = r.pairs[0]!.foreground;
          bg = r.pairs[0]!.background;
        } else if (Array.isArray(p)) {
          [fg, bg] = p;
          if (p.length !== 2) invalid.push({ path: here, rule: 'colour_pair', message: 'a pair is [foreground, background]' });
        } else if (isObject(p)) {
          fg = p.foreground ?? p.fg;
          bg = p.background ?? p.bg;
          own = p.large_text;
        } else {
          invalid.push({ path: here, rule: 'type', message: 'a pair is an object, a two-element array or a string' });
          return;
        }
        if (fg === undefined) missing.push(need(here, 'foreground', 'this pair has no foreground colour'));
        if (bg === undefined) missing.push(need(here, 'background', 'this pair has no background colour'));
        units.push({ at: here, body: { foreground: nativeColour(fg, normalised), background: nativeColour(bg, normalised), large_text: largeText(own) } });
      });
    }
    if (has(inputs, 'foreground') || has(inputs, 'background')) {
      if (!has(inputs, 'foreground')) missing.push(need(at, 'foreground', 'the text colour (#RRGGBB) is missing'));
      if (!has(inputs, 'background')) missing.push(need(at, 'background', 'the background colour (#RRGGBB) is missing'));
      units.push({ at, body: { foreground: nativeColour(inputs.foreground, normalised), background: nativeColour(inputs.background, normalised), large_text: largeText(undefined) } });
    } else if (units.length === 0 && missing.length === 0 && invalid.length === 0) {
      // Contrast is what is asked here, so a plain list of colour names counts too ("teal and white").
      const r = ctx.fromItems ? undefined : readColours(ctx.objective, { loose: true });
      if (r && r.unread?.length) {
        // Never a neighbouring colour instead: the buyer would pay for a pair they did not mean.
        missing.push(
          need(
            at,
            'foreground',
            `${r.unread.map((w) => `"${w}"`).join(', ')} names a shade with no exact value (the router reads #RRGGBB, #RGB, rgb(), hsl() and the CSS named colours, in any of its languages); write each colour as #RRGGBB ("#RRGGBB on #RRGGBB") or send inputs.foreground and inputs.background`,
          ),
        );
      } else if (r && r.pairs.length) {
        for (const pair of r.pairs) units.push({ at: '/objective', body: { ...pair, large_text: largeText(undefined) } });
        assumptions.push(`Colours read from the objective: ${r.how}.`);
      } else if (r && r.colours.length) {
        missing.push(
          need(
            at,
            'background',
            `the objective names ${r.colours.length} colour${r.colours.length === 1 ? '' : 's'} (${r.colours.join(', ')}); write them in pairs ("#RRGGBB on #RRGGBB") or send inputs.foreground and inputs.background`,
          ),
        );
      } else {
        missing.push(need(at, 'foreground', 'the text colour (#RRGGBB), or write "#RRGGBB on #RRGGBB" in the objective'));
        missing.push(need(at, 'background', 'the background colour (#RRGGBB)'));
      }
    }
    if (normalised.length) assumptions.push(`Colours written as #RGB, CSS names or rgb() were read as #RRGGBB: ${[...new Set(normalised)].join(', ')}.`);
    if (defaulted) assumptions.push('large_text was not stated: false (normal text, the stricter AA 4.5 / AAA 7 thresholds) was used.');
    return done(units, missing, invalid, assumptions);
  },
  evidence: ['deterministic'],
  expectedLatencyMs: 5,
  example: () => ({ objective: 'Does #777777 text on #ffffff meet WCAG AA for normal text?' }),
};
