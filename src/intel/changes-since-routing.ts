/** How the outcome router recognises a changes-since objective and builds its native body. */
import { has, pick, need, type RoutingDescriptor } from '../catalog/routing.js';
import { readTimestamp, toTimestamp } from '../catalog/objective-text.js';

/** Clock-relative times: a quote does not depend on the clock, so these are never resolved (and never silently dropped). */
const RELATIVE_TIME =
  /\b(?:yesterday|today|last (?:week|month|year|night|hour)|ago|this (?:week|month|morning)|ayer|hoy|ontem|hoje|hier|aujourd'hui|gestern|heute|ieri|oggi|gisteren|vandaag)\b|昨天|今天|上周|上個?月|昨日|今日|先週|先月|어제|오늘|지난주|지난달/i;

const SINCE_DATE = /\b(?:since|after|desde|depuis|seit|dal|sinds|vanaf)\s+(?:the\s+|el\s+|le\s+|dem\s+|il\s+|o\s+)?\d{4}-\d{2}-\d{2}|\d{4}-\d{2}-\d{2}\s*(?:以来|以後|以降|이후|부터)|(?:自|从|從)\s*\d{4}-\d{2}-\d{2}/i;

export const changesSinceRouting: RoutingDescriptor = {
  outcome: 'Material deltas of the machine-economy newswire since an ISO 8601 cursor (from the beginning when no cursor is given).',
  names: ['changes-since', 'changes since', 'intelligence feed', 'newswire'],
  keywords: [
    /\bchanges?[- ]since\b/,
    /\bwhat(?:'s| has| have| is)? (?:changed|new)\b/,
    /\b(?:news|updates|deltas?|developments) since\b/,
    /\bmachine[- ]economy (?:news|changes|updates|deltas?|developments)\b/,
    /\bnews ?wire\b/,
  ],
  terms: {
    en: ['changes since', 'change since', "what's new", 'what is new', 'what changed', 'what has changed', 'news since', 'updates since', 'deltas since', 'machine economy', 'machine-economy', 'newswire', 'latest news', 'recent news', 'x402 news', 'ecosystem news', 'industry news', 'news feed', 'recent changes', 'recent developments', 'new developments', 'what happened since'],
    es: ['cambios desde', 'novedades desde', 'noticias desde', 'actualizaciones desde', 'que ha cambiado', 'que cambio', 'que hay de nuevo', 'ultimas noticias', 'ultimas novedades', 'economia de las maquinas', 'economia de maquinas', 'economia maquina'],
    pt: ['mudancas desde', 'alteracoes desde', 'novidades desde', 'noticias desde', 'atualizacoes desde', 'o que mudou', 'o que ha de novo', 'ultimas noticias', 'ultimas novidades', 'economia das maquinas', 'economia de maquinas'],
    fr: ['changements depuis', 'modifications depuis', 'nouveautes depuis', 'actualites depuis', 'mises a jour depuis', 'ce qui a change', "qu'est-ce qui a change", 'quoi de neuf', 'dernieres nouvelles', 'dernieres actualites', 'economie des machines'],
    de: ['anderungen seit', 'veranderungen seit', 'neuigkeiten seit', 'nachrichten seit', 'updates seit', 'neuerungen seit', 'was hat sich geandert', 'was ist neu', 'neueste nachrichten', 'aktuelle nachrichten', 'neuigkeiten', 'maschinenokonomie', 'maschinen-okonomie'],
    it: ['cambiamenti da', 'cambiamenti dal', 'modifiche da', 'modifiche dal', 'novita da', 'novita dal', 'notizie da', 'notizie dal', 'aggiornamenti da', 'aggiornamenti dal', 'cosa e cambiato', "cos'e cambiato", 'ultime notizie', 'ultime novita', 'economia delle macchine'],
    nl: ['wijzigingen sinds', 'veranderingen sinds', 'nieuws sinds', 'updates sinds', 'wat is er veranderd', 'wat is er nieuw', 'laatste nieuws', 'machine-economie', 'machine economie', 'machine-economy'],
    zh: ['以来的变化', '以来的变更', '以来有什么变化', '以來的變化', '有什么变化', '有哪些变化', '有什么新', '最新变化', '最新消息', '最新动态', '最新新闻', '机器经济', '機器經濟', '新闻动态'],
    ja: ['以降の変更', '以降の変化', '以降に何が変わ', '何が変わった', '変更点', '最新ニュース', '最新情報', '新着', 'マシンエコノミー', '機械経済'],
    ko: ['이후 변경', '이후의 변경', '이후 변화', '이후의 변화', '무엇이 바뀌었', '뭐가 바뀌었', '변경 사항', '변경사항', '최신 뉴스', '최근 소식', '머신 이코노미', '기계 경제'],
  },
  // A date right after "since" (desde, depuis, seit, dal, sinds, 以来, 以降, 이후…) is a cursor: no other outcome reads dates.
  textSignal: (objective) => (SINCE_DATE.test(objective) ? 'a date after "since" in the objective' : undefined),
  // Renamed only where the capability does not itself accept `since` (then it is read below).
  fieldAliases: { since: 'cursor' },
  reads: ['cursor', 'since', 'include_high_resolution', 'maxItems', 'max_items', 'event_since'],
  // The feed starts from the beginning when the cursor is omitted: nothing is required.
  requiredInputs: [],
  optionalInputs: ['cursor', 'include_high_resolution', 'maxItems', 'event_since'],
  detect: (inputs) => has(inputs, 'cursor') || has(inputs, 'since'),
  evident: (inputs) => [inputs.cursor, inputs.since].some((v) => typeof v === 'string' && (v.startsWith('c1.') || toTimestamp(v) !== undefined)),
  extract(ctx) {
    const { inputs, at } = ctx;
    const assumptions: string[] = [];
    let cursor: unknown = inputs.cursor ?? inputs.since;
    // An opaque nextCursor (`c1.…`) is passed on unchanged; only timestamps are completed.
    if (typeof cursor === 'string' && !cursor.startsWith('c1.')) {
      const t = toTimestamp(cursor);
      if (t && t.filled.length) {
        assumptions.push(`cursor ${cursor} read as ${t.value} (${t.filled.join(', ')} filled in).`);
        cursor = t.value;
      }
    } else if (cursor === undefined && !ctx.fromItems) {
      const t = readTimestamp(ctx.objective);
      if (t) {
        cursor = t.value;
        assumptions.push(`cursor ${t.value} read from the objective${t.filled.length ? ` (${t.filled.join(', ')} filled in)` : ''}.`);
      }
    }
    if (cursor === undefined && !ctx.fromItems && RELATIVE_TIME.test(ctx.objective)) {
      // Starting from the beginning would answer a different question than "since yesterday".
      return {
        kind: 'missing',
        missing: [need(at, 'cursor', 'an ISO 8601 timestamp such as 2025-06-01T00:00:00Z (relative times like "yesterday" are not resolved: a quote does not depend on the clock)')],
      };
    }
    if (cursor === undefined) assumptions.push('No cursor was given: the feed starts from the beginning (its oldest changes first); pass nextCursor from the answer to continue.');
    let high: unknown = inputs.include_high_resolution;
    if (high === undefined) {
      high = !ctx.fromItems && /\bhigh[- ]?res(?:olution)?\b|\bhi[- ]?res\b/i.test(ctx.objective);
      if (high === false) assumptions.push('include_high_resolution was not stated: false was used.');
    }
    // The native body names the bound maxItems (the original's name); max_items is read as its alias.
    const maxItems = inputs.maxItems ?? inputs.max_items;
    return {
      kind: 'units',
      units: [{ at, body: { ...(cursor === undefined ? {} : { cursor }), include_high_resolution: high, ...(maxItems === undefined ? {} : { maxItems }), ...pick(inputs, ['event_since']) } }],
      assumptions,
    };
  },
  evidence: ['deterministic', 'sourced'],
  expectedLatencyMs: 20,
  example: () => ({ objective: 'What changed in the machine economy since 2025-06-01?' }),
};
