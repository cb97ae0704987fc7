/**
 * Outcomes the router refuses by category (service spec, "Not supported"),
 * found in the objective's words and in the inputs' keys. Each category has one
 * stable error code; all of them answer 422 before any payment step.
 */
import type { ErrorCode, ErrorDetail } from '../errors.js';
import { readUris, withoutNegations } from '../catalog/objective-text.js';

export type UnsupportedCategory =
  | 'url_fetching'
  | 'domain_registration_lookup'
  | 'browsing'
  | 'screenshots'
  | 'wallet_signing'
  | 'refunds'
  | 'mcp_payer'
  | 'non_allowlisted_supplier'
  | 'negative_contribution';

export interface UnsupportedOutcome {
  category: UnsupportedCategory;
  code: ErrorCode;
  reason: string;
}

/** The published list, in the order the checks run (the first hit names the code). */
export const UNSUPPORTED: readonly UnsupportedOutcome[] = [
  {
    category: 'url_fetching',
    code: 'url_fetch_unsupported',
    reason:
      'The service fetches no URLs: no page, API, IPFS or Arweave content is ever requested on your behalf. A source_url (or any URL given as something to fetch) is refused; send the content itself (html, field contracts, colours, the URI string to normalize).',
  },
  {
    category: 'domain_registration_lookup',
    code: 'domain_lookup_unsupported',
    reason: 'Domain-registration lookups (WHOIS, RDAP, availability, registrar, expiry, DNS) need live third-party queries; none is offered.',
  },
  {
    category: 'browsing',
    code: 'browsing_unsupported',
    reason: 'No browser runs here: navigating, clicking, logging in or searching the web is not offered.',
  },
  {
    category: 'screenshots',
    code: 'screenshot_unsupported',
    reason: 'Nothing is rendered: screenshots and page captures are not offered.',
  },
  {
    category: 'wallet_signing',
    code: 'wallet_signing_unsupported',
    reason: 'The service holds no buyer keys and signs nothing for you: transactions, messages, permits and transfers are signed by your own wallet.',
  },
  {
    category: 'refunds',
    code: 'refund_unsupported',
    reason: 'There is no refund rail (no seller-key refunds): the router rejects what it cannot deliver before any payment, which is the only protection.',
  },
  {
    category: 'mcp_payer',
    code: 'mcp_payer_unsupported',
    reason: 'The MCP endpoint is not a wallet and never pays: it hands the 402 challenge back to the caller, who pays the quoted route.',
  },
  {
    category: 'non_allowlisted_supplier',
    code: 'supplier_not_allowlisted',
    reason: 'Only the service\'s own handlers (and suppliers on its allowlist, which is empty by default) are used; payments to any other supplier, API, model provider or address are refused.',
  },
  {
    category: 'negative_contribution',
    code: 'negative_contribution',
    reason: 'A plan whose cost of goods would exceed its price is refused rather than sold at a loss.',
  },
];

export function unsupportedOf(category: UnsupportedCategory): UnsupportedOutcome {
  return UNSUPPORTED.find((u) => u.category === category)!;
}

export interface Finding {
  category: UnsupportedCategory;
  detail: ErrorDetail;
}

// ─── the objective's words ─────────────────────────────────────────────────

// Past tenses are left out on purpose: "HTML I downloaded earlier" is content the buyer already has.
const FETCH_VERB = /\b(?:fetch(?:es|ing)?|download(?:s|ing)?|scrap(?:e|es|ing)|crawl(?:s|ing)?|spider(?:ing)?|retriev(?:e|es|ing)|visit(?:s|ing)?|go to|look up the (?:page|site|url|website)|read the (?:page|site|url|website|web ?page)|get the (?:html|page|content|source|markup) (?:of|from|at)|pull (?:the )?(?:html|page|content|data) from|resolv(?:e|ing) (?:the )?(?:metadata|content|json))\b/i;
// What is fetched must be web-ish: a URL, or a noun that only a fetch could supply ("the page at", "the website").
// "retrieve the changes from the feed" is a paid call of this service, not a fetch.
const FETCH_TARGET =
  /\bhttps?:\/\/|\bwww\.|\b(?:ipfs|ipns|ar):\/\/|\b(?:urls?|links?|websites?|web ?sites?|web ?pages?|sites?|pages? (?:at|from|of|behind)|html (?:at|from|of|behind)|metadata (?:at|from|behind)|(?:remote|external) (?:files?|json|documents?|resources?))\b/i;

const DOMAIN =
  /\b(?:whois|rdap|registrar|domain[- ](?:registration|availability|expiry|expiration|owner(?:ship)?|look-?up|search|registered|available|age)|register (?:a |the |my |this |that )?domain|domain names? (?:registration|look-?up|availability)|(?:is|are) [a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,} (?:available|taken|registered|free)|who owns [a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}|when does [a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,} expire|dns (?:look-?up|records?|resolution))\b/i;

const BROWSING =
  /\b(?:brows(?:e|es|ing)(?! the (?:router|contract|catalog|outcomes))|web ?browser|headless|navigat(?:e|ing) (?:to|through|the)|click(?:ing)? (?:on|the|through)|fill(?:ing)? (?:in|out) (?:the|a) form|log ?in (?:to|at|on)|sign ?in (?:to|at|on)|search (?:the )?(?:web|internet|google)|web search|google (?:for|it|search)|surf(?:ing)? the web)\b/i;

const SCREENSHOT =
  /\b(?:screenshots?|screen ?shots?|screen ?captures?|screen ?grabs?|capture (?:the |a )?(?:page|screen|site|website|viewport)|render (?:the |a |this )?(?:page|site|website|url) (?:to|as|into)|(?:png|jpe?g|image) of (?:the |a |this )?(?:page|site|website))\b/i;

const WALLET =
  /\b(?:sign(?:ing)? (?:a |an |the |this |my |that |these )?(?:transactions?|tx|txs|messages?|permits?|typed[- ]?data|payloads?|authori[sz]ations?|transfers?|orders?|eip-?712)|wallet signatures?|sign (?:it |this |that )?(?:with|using) (?:my|the|a) (?:wallet|key|private key|ledger|seed)|(?:use|with|using) my (?:private key|seed phrase|mnemonic|wallet)|send (?:\d+(?:\.\d+)? )?(?:usdc|eth|ether|tokens?|funds|money|crypto)\b|transfer (?:\d+(?:\.\d+)? )?(?:usdc|eth|ether|tokens?|funds|money|crypto)\b|approve (?:the |a |an )?(?:token|spend(?:ing)?|allowance|spender)|personal_sign|eth_sign\w*)/i;

const REFUND =
  /\b(?:refund(?:s|ed|ing)?|charge ?backs?|reimburs(?:e|ed|ement)|money back|reverse (?:the |a |my |this )?(?:payment|charge|settlement|transaction)|undo (?:the |a |my )?payment|cancel (?:the |a |my )?(?:payment|settlement))\b/i;

const MCP_PAYER = [
  /\bmcp\b(?:[\s-]+(?:server|endpoint|tool|tools|client|agent|should|to|will|can|must|would|please|itself|then|and|the|for|me|us))*[\s-]+(?:pay|pays|paying|payer|wallet|settles?|spends?|purchases?|buys?)\b/i,
  /\b(?:payer|pay|pays|paying|wallet|settle|spend)\b(?:\s+[\w-]+){0,3}?\s+(?:through|via|from|by|with|using) (?:the |an |your )?mcp\b/i,
  /\bmcp (?:as|is) (?:the |a |my )?(?:payer|wallet)\b/i,
];

const SUPPLIER = [
  /\b(?:third[- ]party|external|outside|upstream|non[- ]allowlisted|unlisted|other) (?:suppliers?|vendors?|providers?|apis?|data (?:sources?|providers?)|models?|llms?)\b/i,
  /\b(?:pay|paying|buy from|purchase from|route (?:it |this )?to|forward (?:it |this )?to|outsource (?:it |this )?to)\s+(?:a |an |the |another |some |my )?(?:suppliers?|vendors?|providers?)\b/i,
  /\b(?:openai|anthropic|chatgpt|gpt-?[345][\w.-]*|claude|gemini|mistral|perplexity|serpapi|bright ?data|zyte|apify|scrapingbee)\b/i,
];
const PAY_ADDRESS = /\bpay(?:ing)?\s+(?:to\s+)?(?:the\s+)?(?:address\s+)?(0x[0-9a-fA-F]{40})\b/i;

// ─── the inputs' keys ──────────────────────────────────────────────────────

/** Input keys (at any depth) that ask for something refused, unless a capability declares the key. */
const KEY_CATEGORIES: Record<string, UnsupportedCategory> = {
  source_url: 'url_fetching',
  source_urls: 'url_fetching',
  fetch_url: 'url_fetching',
  page_url: 'url_fetching',
  url: 'url_fetching',
  urls: 'url_fetching',
  website: 'url_fetching',
  webpage: 'url_fetching',
  link: 'url_fetching',
  domain: 'domain_registration_lookup',
  domain_name: 'domain_registration_lookup',
  domains: 'domain_registration_lookup',
  whois: 'domain_registration_lookup',
  screenshot: 'screenshots',
  viewport: 'screenshots',
  private_key: 'wallet_signing',
  privatekey: 'wallet_signing',
  mnemonic: 'wallet_signing',
  seed_phrase: 'wallet_signing',
  signer: 'wallet_signing',
  typed_data: 'wallet_signing',
  transaction_to_sign: 'wallet_signing',
  unsigned_transaction: 'wallet_signing',
  refund: 'refunds',
  refund_to: 'refunds',
  refund_tx: 'refunds',
};

/** Keys whose values name who gets paid; every value must be on the allowlist. */
const SUPPLIER_KEYS = ['supplier', 'suppliers', 'vendor', 'vendors', 'provider', 'providers', 'upstream'];
const PAYEE_KEYS = ['pay_to', 'payto', 'payee', 'recipient'];
const PAYER_KEYS = ['payer', 'pay_via', 'paid_by', 'payment_via'];

/** Keys accepted at the top level (folded into inputs) only to be refused with a precise code rather than a schema error. */
export const FOLDED_REFUSAL_KEYS: readonly string[] = [...Object.keys(KEY_CATEGORIES), ...SUPPLIER_KEYS, ...PAYEE_KEYS, ...PAYER_KEYS];

/** What each refused input key means, for the contract. */
export function refusedInputKeys(declared: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, category] of Object.entries(KEY_CATEGORIES)) if (!declared.has(k)) out[k] = `refused: ${category}`;
  for (const k of SUPPLIER_KEYS) if (!declared.has(k)) out[k] = 'refused unless every value is on the supplier allowlist: non_allowlisted_supplier';
  for (const k of PAYEE_KEYS) if (!declared.has(k)) out[k] = "refused unless it is the service's own payee: non_allowlisted_supplier";
  for (const k of PAYER_KEYS) if (!declared.has(k)) out[k] = 'refused when it names MCP: mcp_payer';
  return out;
}

export interface ScreenContext {
  objective: string;
  inputs: Record<string, unknown>;
  /** Input keys some capability declares; they are never refused by name. */
  declaredKeys: ReadonlySet<string>;
  /** Capability ids (the service's own handlers) and allowlisted suppliers. */
  allowlist: ReadonlySet<string>;
  /** The service's payee; a payment to any other address is a non-allowlisted supplier. */
  payTo: string;
  /** Paths of routes this service serves, so "POST https://…/x402/v1/…" is not a URL to fetch. */
  ownPaths: ReadonlySet<string>;
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function namesOf(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(namesOf);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of ['id', 'name', 'address', 'url']) if (typeof o[k] === 'string') return [o[k] as string];
    return [JSON.stringify(v).slice(0, 60)];
  }
  return [String(v)];
}

function isOwnUrl(url: string, ownPaths: ReadonlySet<string>): boolean {
  try {
    return ownPaths.has(new URL(url).pathname.replace(/\/+$/, ''));
  } catch {
    return false;
  }
}

/**
 * Every refused category the request asks for, in the published order. The
 * planner answers with the first one's code and lists all of them in details.
 */
export function screen(ctx: ScreenContext): Finding[] {
  const found: Finding[] = [];
  const add = (category: UnsupportedCategory, path: string, message: string) => {
    if (!found.some((f) => f.category === category && f.detail.path === path)) found.push({ category, detail: { path, rule: category, message } });
  };

  // Keys in inputs, at any depth.
  const walk = (v: unknown, pointer: string, depth: number) => {
    if (depth > 32 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${pointer}/${i}`, depth + 1));
      return;
    }
    for (const [k, inner] of Object.entries(v as Record<string, unknown>)) {
      const key = k.toLowerCase();
      const path = `${pointer}/${escapePointer(k)}`;
      const category = KEY_CATEGORIES[key];
      if (category && !ctx.declaredKeys.has(k)) add(category, path, `inputs carry "${k}", which asks for ${category.replace(/_/g, ' ')}`);
      if (SUPPLIER_KEYS.includes(key) && !ctx.declaredKeys.has(k)) {
        const outside = namesOf(inner).filter((n) => !ctx.allowlist.has(n));
        if (outside.length) add('non_allowlisted_supplier', path, `not on the supplier allowlist: ${outside.slice(0, 5).join(', ')}`);
      }
      if (PAYEE_KEYS.includes(key) && !ctx.declaredKeys.has(k)) {
        const outside = namesOf(inner).filter((n) => n.toLowerCase() !== ctx.payTo.toLowerCase());
        if (outside.length) add('non_allowlisted_supplier', path, `payments go only to the service's payee ${ctx.payTo}`);
      }
      if (PAYER_KEYS.includes(key) && !ctx.declaredKeys.has(k) && namesOf(inner).some((n) => /\bmcp\b/i.test(n))) {
        add('mcp_payer', path, 'the MCP endpoint cannot be the payer');
      }
      walk(inner, path, depth + 1);
    }
  };
  walk(ctx.inputs, '/inputs', 0);

  // Words in the objective, with negated phrases ("without fetching it") removed.
  const text = withoutNegations(ctx.objective);
  const at = '/objective';
  const fetchVerb = FETCH_VERB.exec(text);
  if (fetchVerb) {
    const rest = text.slice(fetchVerb.index);
    const urls = readUris(rest).filter((u) => u.kind === 'nft' || !isOwnUrl(u.value, ctx.ownPaths));
    if (urls.length || FETCH_TARGET.test(rest.slice(0, 160))) add('url_fetching', at, `the objective asks to ${fetchVerb[0].toLowerCase()} something`);
  }
  const checks: Array<[RegExp[], UnsupportedCategory]> = [
    [[DOMAIN], 'domain_registration_lookup'],
    [[BROWSING], 'browsing'],
    [[SCREENSHOT], 'screenshots'],
    [[WALLET], 'wallet_signing'],
    [[REFUND], 'refunds'],
    [MCP_PAYER, 'mcp_payer'],
    [SUPPLIER, 'non_allowlisted_supplier'],
  ];
  for (const [res, category] of checks) {
    for (const re of res) {
      const m = re.exec(text);
      if (m) {
        add(category, at, `the objective asks for "${m[0].slice(0, 80)}"`);
        break;
      }
    }
  }
  const pay = PAY_ADDRESS.exec(text);
  if (pay && pay[1]!.toLowerCase() !== ctx.payTo.toLowerCase()) add('non_allowlisted_supplier', at, `payments go only to the service's payee ${ctx.payTo}`);

  const order = UNSUPPORTED.map((u) => u.category);
  return found.sort((a, b) => order.indexOf(a.category) - order.indexOf(b.category));
}
