/**
 * Outcomes the router refuses by category (service spec, "Not supported"),
 * found in what the request asks: the objective's words (in the ten routed
 * languages) and the top-level keys of its inputs (or of an inputs.items
 * element) — never keys nested inside a value, which are data (EIP-712 typed
 * data has a "domain"; so may a metadata object). Each category has one stable
 * error code; all of them answer 422 before any payment step.
 */
import type { ErrorCode, ErrorDetail } from '../errors.js';
import { compileTerms, foldText, pastedData, readUris, withoutNegations, withoutNegationsFolded, type Terms } from '../catalog/objective-text.js';

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
  /** What the service does not do, as the end of one sentence ("this service fetches no URLs"). */
  because: string;
}

/** The published list, in the order the checks run (the first hit names the code). */
export const UNSUPPORTED: readonly UnsupportedOutcome[] = [
  {
    category: 'url_fetching',
    code: 'url_fetch_unsupported',
    reason:
      'The service fetches no URLs: no page, API, IPFS or Arweave content is ever requested on your behalf. A source_url (or any URL given as something to fetch) is refused; send the content itself (html, field contracts, colours, the URI string to normalize).',
    because: 'this service fetches no URLs and needs the content itself',
  },
  {
    category: 'domain_registration_lookup',
    code: 'domain_lookup_unsupported',
    reason: 'Domain-registration lookups (WHOIS, RDAP, availability, registrar, expiry, DNS) need live third-party queries; none is offered.',
    because: 'domain-registration lookups need live third-party queries, which this service does not make',
  },
  {
    category: 'browsing',
    code: 'browsing_unsupported',
    reason: 'No browser runs here: navigating, clicking, logging in or searching the web is not offered.',
    because: 'no browser runs here',
  },
  {
    category: 'screenshots',
    code: 'screenshot_unsupported',
    reason: 'Nothing is rendered: screenshots and page captures are not offered.',
    because: 'nothing is rendered here',
  },
  {
    category: 'wallet_signing',
    code: 'wallet_signing_unsupported',
    reason: 'The service holds no buyer keys and signs nothing for you: transactions, messages, permits and transfers are signed by your own wallet.',
    because: "this service holds no buyer keys and signs nothing on a buyer's behalf",
  },
  {
    category: 'refunds',
    code: 'refund_unsupported',
    reason: 'There is no refund rail (no seller-key refunds): the router rejects what it cannot deliver before any payment, which is the only protection.',
    because: 'there is no refund rail, only refusal before payment',
  },
  {
    category: 'mcp_payer',
    code: 'mcp_payer_unsupported',
    reason: 'The MCP endpoint is not a wallet and never pays: it hands the 402 challenge back to the caller, who pays the quoted route.',
    because: 'the MCP endpoint is not a wallet and never pays',
  },
  {
    category: 'non_allowlisted_supplier',
    code: 'supplier_not_allowlisted',
    reason: 'Only the service\'s own handlers (and suppliers on its allowlist, which is empty by default) are used; payments to any other supplier, API, model provider or address are refused.',
    because: "only the service's own handlers and allowlisted suppliers are paid",
  },
  {
    category: 'negative_contribution',
    code: 'negative_contribution',
    reason: 'A plan whose cost of goods (its settlements included) would exceed its price is refused rather than sold at a loss.',
    because: 'a plan is never sold below its cost of goods',
  },
];

export function unsupportedOf(category: UnsupportedCategory): UnsupportedOutcome {
  return UNSUPPORTED.find((u) => u.category === category)!;
}

export interface Finding {
  category: UnsupportedCategory;
  detail: ErrorDetail;
}

/** A refusal in one sentence: what the request asks, and why the service does not do it. */
export function refusalSentence(f: Finding): string {
  const asked = f.detail.message ?? `the request asks for ${f.category.replace(/_/g, ' ')}`;
  return `Refused before any payment: ${asked.charAt(0).toLowerCase()}${asked.slice(1)}, but ${unsupportedOf(f.category).because}, so nothing was quoted or charged.`;
}

// ─── the objective's words ─────────────────────────────────────────────────

// Past tenses are left out on purpose: "HTML I downloaded earlier" is content the buyer already has.
const FETCH_VERB = /\b(?:fetch(?:es|ing)?|download(?:s|ing)?|scrap(?:e|es|ing)|crawl(?:s|ing)?|spider(?:ing)?|retriev(?:e|es|ing)|visit(?:s|ing)?|go to|look up the (?:page|site|url|website)|read the (?:page|site|url|website|web ?page)|get the (?:html|page|content|source|markup) (?:of|from|at)|pull (?:the )?(?:html|page|content|data) from|resolv(?:e|ing) (?:the )?(?:metadata|content|json))\b/i;
// What is fetched must be web-ish: a URL, or a noun that only a fetch could supply ("the page at", "the website").
// "retrieve the changes from the feed" is a paid call of this service, not a fetch.
const FETCH_TARGET =
  /\bhttps?:\/\/|\bwww\.|\b(?!schema\.org\b)[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|co|ai|app|dev|shop|store|xyz|info|biz|[a-z]{2})\b(?![.\w]*@)|\b(?:ipfs|ipns|ar):\/\/|\b(?:urls?|links?|websites?|web ?sites?|web ?pages?|sites?|pages? (?:at|from|of|behind)|html (?:at|from|of|behind)|metadata (?:at|from|behind)|(?:remote|external) (?:files?|json|documents?|resources?))\b/i;

const DOMAIN =
  /\b(?:whois|rdap|registrar|domain[- ](?:registration|availability|expiry|expiration|owner(?:ship)?|look-?up|search|registered|available|age)|register (?:a |the |my |this |that )?domain|domain names? (?:registration|look-?up|availability)|(?:is|are) [a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,} (?:available|taken|registered|free)|who owns [a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}|when does [a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,} expire|dns (?:look-?up|records?|resolution))\b/i;

const BROWSING =
  /\b(?:brows(?:e|es|ing)(?! the (?:router|contract|catalog|outcomes))|web ?browser|in (?:a|the|my|your) (?:web |headless )?browser|headless|log ?in(?=$|[.!?,;])|navigat(?:e|ing) (?:to|through|the)|click(?:s|ed|ing)?\b(?! ?(?:through rate|stream|bait))|tap (?:on )?the (?:button|link)|fill(?:ing)? (?:in|out) (?:the|a) form|log ?in(?:to)? (?:to|at|on|my|the|your)|sign ?in(?:to)? (?:to|at|on|my|the|your)|open (?:up )?(?:my|the|your|our|a) (?:[\w-]+ ){0,3}?(?:admin|dashboard|account|website|web ?site|web ?page|page|store ?front|store|portal|console|panel|tab|browser|inbox|back ?office)\b|go to (?:my|the|your|our) (?:[\w-]+ ){0,3}?(?:admin|dashboard|account|website|site|page|portal|console)\b|search (?:the )?(?:web|internet|google|online)|search online|look (?:it |this |that )?up online|web search|google (?:for|it|search|the|a|an|this|that|what|which|who|whom|how|where|when|me|up|den|die|das|nach|de|het|naar|el|la|los|las|le|les|o|il|lo|gli)\b|bing (?:it|for|the)|surf(?:ing)? the web)\b/i;

/** The login words a browsing finding may quote (any routed language): on their own, with a signature asked for, they are its purpose. */
const LOGIN_WORDS = /"(?:log ?in(?:to)?(?: (?:to|at|on|my|the|your))?|sign ?in(?:to)?(?: (?:to|at|on|my|the|your))?|inicia(?:r)? sesion|fa(?:ca|zer|z) login|se connecter|connecte-toi|connectez-vous|einloggen|melde dich an|anmelden|effettua il login|inloggen|log in op|登录|登錄|登入|ログインして|로그인해|로그인하고)"$/;

const SCREENSHOT =
  /\b(?:screenshots?|screen ?shots?|screen ?captures?|screen ?grabs?|capture (?:the |a )?(?:page|screen|site|website|viewport)|render (?:the |a |this )?(?:page|site|website|url) (?:to|as|into)|(?:png|jpe?g|image) of (?:the |a |this )?(?:page|site|website))\b/i;

const WALLET =
  /\b(?:sign(?:ing)? (?:a |an |the |this |my |that |these )?(?:sign[- ]in[- ]with[- ](?:ethereum|solana|x) |eip-?4361 )?(?:siwe |login |log-?in |sign-?in |auth(?:entication)? )?(?:transactions?|tx|txs|messages?|permits?|typed[- ]?data|payloads?|authori[sz]ations?|transfers?|orders?|eip-?712|challenges?|nonces?)|wallet signatures?|sign (?:it |this |that )?(?:with|using) (?:my|the|a) (?:wallet|key|private key|ledger|seed)|(?:use|with|using) my (?:private key|seed phrase|mnemonic)|send (?:\d+(?:\.\d+)? )?(?:usdc|eth|ether|tokens?|funds|money|crypto)\b|transfer (?:\d+(?:\.\d+)? )?(?:usdc|eth|ether|tokens?|funds|money|crypto)\b|approve (?:the |a |an )?(?:token|spend(?:ing)?|allowance|spender)|personal_sign|eth_sign\w*)/i;

/** "Sign in with Ethereum on my behalf", "Please sign in with Solana": a sign-in the service would have to sign (a page named "SIWE-style" is not). */
const SIGN_IN_FOR_ME = /(?:(?:^|[.!?;]\s*)(?:please |just |now |then )*sign[- ]in[- ]with[- ](?:ethereum|solana|x)\b|\bsign[- ]in[- ]with[- ](?:ethereum|solana|x)\b[^.!?]{0,20}?\b(?:on my behalf|for me|as me|using my (?:wallet|key)))/i;

const REFUND =
  /\b(?:refund(?:s|ed|ing)?|charge ?backs?|reimburs(?:e|ed|ement)|money back|reverse (?:the |a |my |this )?(?:payment|charge|settlement|transaction)|undo (?:the |a |my )?payment|cancel (?:the |a |my )?(?:payment|settlement))\b/i;

const MCP_PAYER = [
  // "Just pay the x402 challenge on my behalf": an order to pay for the buyer, addressed to this service.
  /(?:^|[.!?;]\s*)(?:just |please |now |then )*(?:pay|settle|cover)\b[^.!?]{0,40}?\b(?:on my behalf|on our behalf|for me|for us)\b/i,
  // "have the router pay the challenge on my behalf": nothing here pays for the buyer, whatever it is called.
  /\b(?:router|service|server|endpoint|gateway|proxy|agent|you)\b[^.!?]{0,40}?\b(?:pay|pays|settle|settles|cover|covers)\b[^.!?]{0,40}?\b(?:on my behalf|on our behalf|for me|for us)\b/i,
  // "ask the MCP server to pay the 402", "have your MCP endpoint cover the payment", "use the MCP server's wallet".
  /\bmcp\b[^.!?]{0,60}?(?<!\b(?:i|we|i'll|we'll|i will|we will|i can|we can|i'd) )\b(?:pay|pays|paying|paid|cover|covers|settle|settles|handle|handles|foot|fund|funds|sign)\b[^.!?]{0,30}?\b(?:402|x402|payment|payments|challenge|bill|invoice|fee|charge|it|for me|on my behalf)\b/i,
  /\bmcp(?: server| endpoint| tool)?'?s? (?:own )?wallet\b/i,
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

// ─── the objective's words in the other routed languages (over folded text) ───

/** Verbs that ask for a fetch; a fetch needs a target too (a URL, or one of FETCH_TARGET_TERMS). */
const FETCH_VERB_TERMS: Terms = {
  // Present and imperative forms only: "la página que descargué" is content the buyer already has.
  es: ['descarga', 'descargar', 'descargala', 'obten la pagina', 'obtener la pagina', 'rastrea', 'rastrear', 'raspa', 'raspar', 'visita', 'visitar', 'accede a', 'recupera el contenido', 'recuperar el contenido', 'lee la pagina', 'leer la pagina'],
  pt: ['baixe', 'baixar', 'baixa a', 'busque a pagina', 'buscar a pagina', 'raspe', 'raspar', 'visite', 'visitar', 'acesse', 'acessar', 'leia a pagina', 'ler a pagina', 'rastreie', 'rastrear'],
  fr: ['telecharge', 'telecharger', 'telechargez', 'recupere la page', 'recuperer la page', 'recuperez la page', 'aspire', 'aspirer', 'visite', 'visiter', 'visitez', 'lis la page', 'lire la page', 'crawler', 'recuperer le contenu', 'recupere le contenu'],
  de: ['herunterladen', 'lade * herunter', 'ruf * ab', 'rufe * ab', 'abrufen', 'hole die seite', 'hol die seite', 'besuche', 'besuchen', 'crawle', 'crawlen', 'lies die seite', 'scrapen'],
  it: ['scarica', 'scaricare', 'recupera la pagina', 'recuperare la pagina', 'visita', 'visitare', 'leggi la pagina', 'leggere la pagina', 'fai lo scraping', 'scansiona', 'scansionare', 'recupera il contenuto'],
  nl: ['download', 'downloaden', 'haal * op', 'ophalen', 'bezoek', 'bezoeken', 'lees de pagina', 'crawlen', 'scrapen'],
  zh: ['抓取', '下载', '下載', '爬取', '获取网页', '獲取網頁', '访问', '訪問', '读取网页'],
  ja: ['ダウンロードして', 'クロールして', 'スクレイピング', 'スクレイプ', 'ページを取得', 'サイトを取得', 'urlを取得'],
  ko: ['다운로드해', '크롤링', '스크래핑', '페이지를 가져', '사이트를 가져', '가져와', '방문해', '접속해'],
};
const FETCH_TARGET_TERMS: Terms = {
  es: ['pagina*', 'sitio*', 'web', 'enlace*', 'url*'],
  pt: ['pagina*', 'site*', 'sitio', 'web', 'link*', 'url*'],
  fr: ['page*', 'site*', 'web', 'lien*', 'url*'],
  de: ['seite*', 'webseite*', 'website*', 'link*', 'url*', 'internetseite*'],
  it: ['pagina', 'pagine', 'sito', 'siti', 'web', 'link', 'url'],
  nl: ['pagina*', 'webpagina*', 'site*', 'website*', 'link*', 'url*'],
  zh: ['网页', '網頁', '页面', '頁面', '网站', '網站', '网址', '链接', 'url'],
  ja: ['ページ', 'サイト', 'url', 'リンク', 'ウェブ'],
  ko: ['페이지', '사이트', '웹사이트', 'url', '링크'],
};

/** Words naming each refused category in the other routed languages (English is in the patterns above). */
const CATEGORY_TERMS: ReadonlyArray<[UnsupportedCategory, Terms]> = [
  [
    'domain_registration_lookup',
    {
      es: ['whois', 'rdap', 'registrador', 'registrar el dominio', 'registrar un dominio', 'registrar este dominio', 'registro del dominio', 'registro de dominio*', 'disponibilidad del dominio', 'caducidad del dominio', 'vencimiento del dominio', 'dueno del dominio', 'propietario del dominio', 'nombre de dominio'],
      pt: ['registrar o dominio', 'registrar um dominio', 'registro do dominio', 'registro de dominio*', 'disponibilidade do dominio', 'expiracao do dominio', 'vencimento do dominio', 'dono do dominio', 'nome de dominio'],
      fr: ['nom de domaine', 'noms de domaine', 'enregistrer le domaine', 'enregistrer un domaine', 'disponibilite du domaine', 'expiration du domaine', 'proprietaire du domaine', "bureau d'enregistrement", 'registraire'],
      de: ['domainname*', 'domain registrier*', 'domain-registrierung', 'domainregistrierung', 'domainverfugbarkeit', 'domain-verfugbarkeit', 'ablauf der domain', 'ablaufdatum der domain', 'domaininhaber', 'inhaber der domain', 'wem gehort die domain'],
      it: ['nome di dominio', 'nomi di dominio', 'registrare il dominio', 'registrare un dominio', 'registrazione del dominio', 'disponibilita del dominio', 'scadenza del dominio', 'proprietario del dominio'],
      nl: ['domeinnaam', 'domeinnamen', 'domein registreren', 'domeinregistratie', 'beschikbaarheid van het domein', 'verloopdatum van het domein', 'eigenaar van het domein', 'registrar'],
      zh: ['域名'],
      ja: ['ドメイン'],
      ko: ['도메인'],
    },
  ],
  [
    'browsing',
    {
      es: ['navega', 'navegar', 'navegando', 'navegue', 'abre la pagina', 'abrir la pagina', 'haz clic', 'hacer clic', 'pulsa en', 'inicia sesion', 'iniciar sesion', 'busca en google', 'buscar en google', 'busca en internet', 'buscar en internet', 'busca en la web', 'buscar en la web', 'rellena el formulario', 'llena el formulario'],
      pt: ['navegue', 'navegar', 'abra a pagina', 'abrir a pagina', 'navega', 'clique em', 'clicar em', 'clica em', 'faca login', 'fazer login', 'faz login', 'entre no site', 'entre na conta', 'pesquise no google', 'pesquisar no google', 'pesquise na web', 'pesquisar na internet', 'preencha o formulario'],
      fr: ['navigue*', 'naviguer', 'ouvre la page', 'ouvrir la page', 'clique sur', 'cliquez sur', 'cliquer sur', 'connecte-toi', 'se connecter', 'connectez-vous', 'cherche sur google', 'recherche sur google', 'chercher sur le web', 'recherche sur internet', 'remplis le formulaire', 'remplir le formulaire'],
      de: ['navigier*', 'klick*', 'google den', 'google die', 'google das', 'google nach', 'offne die seite', 'einloggen', 'logge dich ein', 'melde dich an', 'anmelden', 'im web suchen', 'im internet suchen', 'suche im internet', 'durchsuche das web', 'google nach', 'googeln', 'surfen', 'surfe im', 'formular ausfullen', 'fulle das formular'],
      it: ['naviga', 'navigare', 'navigando', 'navighi', 'apri la pagina', 'aprire la pagina', 'fai clic', 'clicca*', 'effettua il login', 'accedi al sito', 'accedi all', 'cerca su google', 'cerca sul web', 'cerca su internet', 'compila il modulo'],
      nl: ['navigeer*', 'open de pagina', 'google de', 'google het', 'google naar', 'klik op', 'klikken', 'inloggen', 'log in op', 'zoek op google', 'zoek op internet', 'zoeken op het web', 'surfen', 'surf naar', 'vul het formulier'],
      zh: ['浏览', '瀏覽', '打开网页', '打开网址', '打开链接', '点击', '點擊', '登录', '登錄', '登入', '上网搜索', '网上搜索', '搜索网页', '谷歌搜索', '填写表单', '打开浏览器'],
      ja: ['ブラウズ', 'ブラウザで', 'ググって', 'ググる', 'ググり', 'ページを開いて', 'サイトを開いて', 'クリックして', 'ログインして', 'ウェブで検索', 'ネットで検索', 'グーグルで検索', 'googleで検索', 'フォームに入力', '閲覧して'],
      ko: ['브라우저로', '브라우징', '구글링', '구글에서 검색', '구글로 검색', '페이지를 열어', '사이트를 열어', '클릭해', '클릭하고', '로그인해', '로그인하고', '웹에서 검색', '인터넷에서 검색', '구글에서 검색', '구글 검색', '양식을 작성', '둘러보'],
    },
  ],
  [
    'screenshots',
    {
      es: ['captura de pantalla', 'capturas de pantalla', 'pantallazo*', 'captura la pantalla', 'captura de la pagina'],
      pt: ['captura de tela', 'capturas de tela', 'print da tela', 'print da pagina', 'printscreen', 'capture a tela'],
      fr: ["capture d'ecran", "captures d'ecran", 'capture ecran', "copie d'ecran", 'capture de la page'],
      de: ['bildschirmfoto*', 'bildschirmaufnahme*', 'screenshot*', 'bildschirmkopie*'],
      it: ['schermata', 'schermate', 'cattura dello schermo', 'cattura della pagina', 'istantanea della pagina'],
      nl: ['schermafbeelding*', 'schermopname*', 'schermafdruk*', 'screenshot*'],
      zh: ['截图', '截圖', '截屏', '屏幕截图', '网页快照', '屏幕快照'],
      ja: ['スクリーンショット', 'スクショ', '画面キャプチャ', 'キャプチャ画像', '画面を撮'],
      ko: ['스크린샷', '화면 캡처', '화면캡처', '캡처해', '캡쳐'],
    },
  ],
  [
    'wallet_signing',
    {
      es: ['firma * transaccion', 'firmar * transaccion', 'firma la transaccion', 'firmar la transaccion', 'firma esta transaccion', 'firmar esta transaccion', 'firma el mensaje', 'firmar el mensaje', 'firma este mensaje', 'firmar un mensaje', 'firma con mi', 'mi clave privada', 'mi frase semilla', 'envia usdc', 'enviar usdc', 'transfiere usdc', 'transferir usdc'],
      pt: ['assine * transacao', 'assinar * transacao', 'assine a transacao', 'assinar a transacao', 'assine esta transacao', 'assinar esta transacao', 'assine a mensagem', 'assinar a mensagem', 'assinar uma mensagem', 'assine com minha', 'minha chave privada', 'minha frase semente', 'envie usdc', 'enviar usdc', 'transfira usdc', 'transferir usdc'],
      fr: ['signe * transaction', 'signez * transaction', 'signer * transaction', 'signe la transaction', 'signer la transaction', 'signez la transaction', 'signe cette transaction', 'signer ce message', 'signe le message', 'signer le message', 'signe avec mon', 'ma cle privee', 'ma phrase de recuperation', 'envoie des usdc', 'envoyer des usdc', 'transfere des usdc', 'transferer des usdc'],
      de: ['signiere * transaktion', 'unterschreibe * transaktion', 'signiere die transaktion', 'transaktion signier*', 'signiere diese transaktion', 'unterschreibe die transaktion', 'nachricht signier*', 'signiere die nachricht', 'mit meinem privaten schlussel', 'meinen privaten schlussel', 'meine seed-phrase', 'sende usdc', 'usdc senden', 'uberweise usdc', 'usdc uberweisen'],
      it: ['firma * transazione', 'firmare * transazione', 'firma la transazione', 'firmare la transazione', 'firma questa transazione', 'firma il messaggio', 'firmare il messaggio', 'firma con il mio', 'la mia chiave privata', 'mia chiave privata', 'invia usdc', 'inviare usdc', 'trasferisci usdc', 'trasferire usdc'],
      nl: ['onderteken * transactie', 'teken * transactie', 'onderteken de transactie', 'transactie ondertekenen', 'teken de transactie', 'onderteken het bericht', 'bericht ondertekenen', 'met mijn prive sleutel', 'mijn privesleutel', 'mijn prive sleutel', 'stuur usdc', 'usdc sturen', 'maak usdc over', 'usdc overmaken'],
      zh: ['签名交易', '签署交易', '簽署交易', '交易签名', '签名这个交易', '签名消息', '签署消息', '用我的钱包签', '用我的私钥', '我的私钥', '助记词', '转账', '轉賬', '发送usdc'],
      ja: ['トランザクションに署名', 'トランザクションを署名', 'メッセージに署名', 'ウォレットで署名', '秘密鍵', 'シードフレーズ', '送金して', 'usdcを送'],
      ko: ['트랜잭션에 서명', '트랜잭션 서명', '거래에 서명', '메시지에 서명', '지갑으로 서명', '개인 키', '개인키', '시드 문구', '송금해', 'usdc를 보내'],
    },
  ],
  [
    'refunds',
    {
      es: ['reembols*', 'devolucion del pago', 'devuelve mi dinero', 'devolver el dinero', 'devuelvan el dinero', 'devuelvan mi dinero', 'me devuelvan', 'devolucion de mi dinero', 'revertir el pago', 'anular el pago', 'contracargo*'],
      pt: ['reembols*', 'estorno*', 'estornar', 'devolver o dinheiro', 'devolva meu dinheiro', 'reverter o pagamento', 'cancelar o pagamento'],
      fr: ['rembours*', 'annuler le paiement', 'annule le paiement', 'rendre mon argent', 'retrofacturation'],
      de: ['ruckerstatt*', 'erstatte*', 'erstattung', 'geld zuruck', 'ruckbuchung*', 'zahlung stornier*', 'storniere die zahlung'],
      it: ['rimbors*', 'restituisci i soldi', 'annulla il pagamento', 'annullare il pagamento', 'storna*'],
      nl: ['terugbeta*', 'restitutie', 'geld terug', 'terugstort*', 'betaling terugdraaien', 'betaling annuleren'],
      zh: ['退款', '退钱', '退錢', '退还', '退還', '撤销付款', '撤销支付'],
      ja: ['返金', '払い戻し', '払戻し', '支払いを取り消'],
      ko: ['환불', '결제 취소', '결제를 취소'],
    },
  ],
  [
    'non_allowlisted_supplier',
    {
      es: ['proveedor externo', 'proveedores externos', 'api externa', 'apis externas', 'otro proveedor', 'proveedor de terceros', 'de terceros'],
      pt: ['fornecedor externo', 'fornecedores externos', 'api externa', 'apis externas', 'outro fornecedor', 'provedor externo', 'de terceiros'],
      fr: ['fournisseur externe', 'fournisseurs externes', 'api externe', 'apis externes', 'autre fournisseur', 'prestataire externe', 'tiers fournisseur'],
      de: ['externe* anbieter', 'externen api', 'externe api', 'drittanbieter*', 'anderen anbieter', 'externe* dienstleister'],
      it: ['fornitore esterno', 'fornitori esterni', 'api esterna', 'api esterne', 'altro fornitore', 'fornitore terzo', 'di terze parti'],
      nl: ['externe leverancier*', 'externe aanbieder*', 'externe api', 'andere leverancier', 'derde partij', 'derden'],
      zh: ['第三方', '外部供应商', '外部供應商', '外部api', '外部接口', '其他供应商'],
      ja: ['サードパーティ', '外部のapi', '外部api', '外部プロバイダ', '外部の業者', '他のプロバイダ'],
      ko: ['외부 공급자', '외부 공급업체', '타사', '서드파티', '외부 api', '다른 공급자'],
    },
  ],
];
const COMPILED_CATEGORY_TERMS = CATEGORY_TERMS.map(([category, terms]) => [category, compileTerms(terms)!] as const);
const FETCH_VERB_RE = compileTerms(FETCH_VERB_TERMS)!;
const FETCH_TARGET_RE = compileTerms(FETCH_TARGET_TERMS)!;
/** "¿está disponible ejemplo.com?", "ist beispiel.de noch frei": a host name and availability in one sentence. */
const DOMAIN_AVAILABLE =
  /(?<![\w.@/-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![\w/])[^.?!]{0,40}(?:disponible|disponivel|verfugbar|noch frei|beschikbaar|disponibile|libre|vrij|registriert|registrado|enregistre|registrato|geregistreerd)|(?:disponible|disponivel|verfugbar|beschikbaar|disponibile)[^.?!]{0,30}(?<![\w.@/-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![\w/])|(?:dominio|domaine|domain|domein)\s+[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![\w/])/;
/** Host names: what a domain question is about. */
const HOST = String.raw`(?<![\w.@/-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![\w/])`;
/** "¿quién es el dueño de ejemplo.com?", "Wer ist der Inhaber von example.de?", "example.com の所有者". */
const DOMAIN_OWNER = new RegExp(
  String.raw`(?:inhaber|eigentumer|besitzer|propietario|dueno|proprietaire|proprietario|dono|eigenaar|所有者|持ち主|소유자|主人)[^.?!]{0,30}${HOST}|${HOST}[^.?!]{0,20}(?:所有者|持ち主|소유자|登録者|注册人)`,
);
/** Signing in the other languages: a signing verb, then (within a few words) what would be signed. */
const SIGN_FOLDED =
  /(?<![a-z])(?:firma|firme|firmar|firmare|assine|assinar|assina|signe|signez|signiere|signieren|unterschreibe|unterschreiben|onderteken|ondertekenen|teken)\s+(?:[^\s.?!]+\s+){0,3}?(?:siwe-?)?(?:transac\w*|transakt\w*|transazion\w*|transactie\w*|mensaje|mensagem|message|nachricht\w*|messaggio|bericht|permit\w*|typed|eip-?712|orden|ordem|ordre|auftrag|ordine|order|autoriza\w*|autoris\w*|autorizzazion\w*|machtiging)/;
/** Moving funds in the other languages: "envía 5 USDC", "stuur 10 USDC naar", "überweise 3 ETH". */
const SEND_FOLDED =
  /(?<![a-z])(?:envia|enviar|envie|manda|mandar|envoie|envoyer|envoyez|sende|senden|uberweise|uberweisen|invia|inviare|stuur|sturen|verstuur|transfiere|transferir|transfira|transfere|transferer|trasferisci|trasferire|maak)\s+(?:\d+(?:[.,]\d+)?\s+)?(?:usdc|eth|ether|dai|usdt|tokens?|fondos|fundos|fonds|gelder|fondi|geld|dinero|dinheiro|argent|soldi)\b/;

/** "구글에서 … 검색", "谷歌上搜索", "Googleで…検索": a web search engine, then searching, in one sentence. */
const SEARCH_ENGINE_FOLDED = /(?:구글|google|グーグル|谷歌|bing|빙)(?:에서|で|上|에|을|を)[^.?!。？！]{0,40}?(?:검색|検索|搜索|查找|찾아)/;

/** Signing a (login) message in Chinese, Japanese, Korean: "签名这条SIWE消息", "このSIWEメッセージに署名", "이 SIWE 메시지에 서명". */
const SIGN_CJK_FOLDED = /(?:签名|签署|簽署|簽名)[^。？！.?!]{0,10}(?:消息|信息|讯息|訊息)|(?:消息|信息|メッセージ|메시지)[^。？！.?!]{0,8}(?:签名|签署|署名して|署名|서명)/;
/** The MCP endpoint asked to pay for the buyer: "fai pagare il 402 al server MCP per me", "lass den MCP-Server für mich zahlen". */
const MCP_FOR_ME_FOLDED = /(?=[^.?!]*mcp)(?=[^.?!]*(?<![a-z])(?:pag\w*|pay\w*|pai\w*|zahl\w*|bezahl\w*|betaal\w*)(?![a-z]))[^.?!]*(?<![a-z])(?:per me|para mi|por mi|para mim|pour moi|fur mich|voor mij|a mio nome|en mi nombre|em meu nome|en mon nom|in meinem namen|namens mij)(?![a-z])/;

/** MCP named as the one that pays, in the other languages: "que el servidor MCP pague", "MCP soll bezahlen", "让MCP支付". */
const MCP_PAYS_FOLDED =
  /mcp.{0,60}?(?<![a-z])(?:pague|paguen|pagar|paga|pagara|paie|payer|paye|bezahl\w*|zahl\w*|paghi|pagare|betaal\w*|betalen)(?![a-z])|(?<![a-z])(?:pague|pagar|paie|payer|bezahl\w*|zahle|pagare|betaal|betalen)(?![a-z]).{0,25}?(?:via|por|par|uber|tramite|met|com|con|avec|mit|door|atraves)\s+(?:el |la |o |a |le |den |das |il |de |het )?(?:servidor |server |serveur )?mcp|mcp.{0,20}?(?:支付|付款|付钱|付費|支払|払う|払って|지불|결제)|(?:通过|经由|用|経由で|を通じて|통해|으로|로).{0,6}mcp.{0,10}(?:支付|付款|支払|지불|결제)/;

// ─── the inputs' keys ──────────────────────────────────────────────────────

/** Top-level input keys that ask for something refused, unless a capability declares the key (nested keys are data). */
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

/** A domain key asks for a lookup only when its value names hosts ("example.com"), not when it is data (an EIP-712 domain object). */
function namesHosts(v: unknown): boolean {
  if (typeof v === 'string') return /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\.?$/i.test(v.trim()) || /^[a-z0-9-]{2,63}$/i.test(v.trim());
  return Array.isArray(v) && v.length > 0 && v.every(namesHosts);
}

/**
 * Every refused category the request asks for. The planner answers with the
 * first one's code and lists all of them in details: what the objective asks
 * comes first (a browse request carrying a `website` key is a browse
 * request), then the inputs' keys, each group in the published order.
 */
export function screen(ctx: ScreenContext): Finding[] {
  const fromWords: Finding[] = [];
  const fromKeys: Finding[] = [];
  const add = (into: Finding[], category: UnsupportedCategory, path: string, message: string) => {
    if (!into.some((f) => f.category === category && f.detail.path === path)) into.push({ category, detail: { path, rule: category, message } });
  };

  // The request's own keys: the top level of inputs, and of each inputs.items element (a native body).
  const keysOf = (o: Record<string, unknown>, pointer: string) => {
    for (const k of Object.keys(o)) {
      const inner = o[k];
      if (inner === undefined || ctx.declaredKeys.has(k)) continue;
      const key = k.toLowerCase();
      const path = `${pointer}/${escapePointer(k)}`;
      const category = KEY_CATEGORIES[key];
      if (category && (category !== 'domain_registration_lookup' || namesHosts(inner))) {
        add(fromKeys, category, path, `inputs carry "${k}", which asks for ${category.replace(/_/g, ' ')}`);
      }
      if (SUPPLIER_KEYS.includes(key)) {
        const outside = namesOf(inner).filter((n) => !ctx.allowlist.has(n));
        if (outside.length) add(fromKeys, 'non_allowlisted_supplier', path, `inputs name a supplier off the allowlist (${outside.slice(0, 5).join(', ')})`);
      }
      if (PAYEE_KEYS.includes(key)) {
        const outside = namesOf(inner).filter((n) => n.toLowerCase() !== ctx.payTo.toLowerCase());
        if (outside.length) add(fromKeys, 'non_allowlisted_supplier', path, `inputs ask to pay someone other than the service's payee ${ctx.payTo}`);
      }
      if (PAYER_KEYS.includes(key) && namesOf(inner).some((n) => /\bmcp\b/i.test(n))) add(fromKeys, 'mcp_payer', path, 'inputs name the MCP endpoint as the payer');
    }
  };
  keysOf(ctx.inputs, '/inputs');
  if (Array.isArray(ctx.inputs.items)) {
    ctx.inputs.items.forEach((item, i) => {
      if (item !== null && typeof item === 'object' && !Array.isArray(item)) keysOf(item as Record<string, unknown>, `/inputs/items/${i}`);
    });
  }

  // Words in the objective, with negated phrases ("without fetching it", "sin descargarla") removed.
  // Pasted data (JSON, a page) is what the buyer sends, not what it asks for: only the words around it are read.
  const words = pastedData(ctx.objective).words;
  const text = withoutNegations(words);
  const folded = withoutNegationsFolded(foldText(words));
  const at = '/objective';
  const fetchVerb = FETCH_VERB.exec(text);
  if (fetchVerb) {
    const rest = text.slice(fetchVerb.index);
    const urls = readUris(rest).filter((u) => u.kind === 'nft' || !isOwnUrl(u.value, ctx.ownPaths));
    if (urls.length || FETCH_TARGET.test(rest.slice(0, 160))) add(fromWords, 'url_fetching', at, `the objective asks to ${fetchVerb[0].toLowerCase()} something`);
  }
  const foldedVerb = FETCH_VERB_RE.exec(folded);
  if (foldedVerb) {
    const around = folded.slice(Math.max(0, foldedVerb.index - 40), foldedVerb.index + 160);
    const urls = readUris(around).filter((u) => u.kind === 'nft' || !isOwnUrl(u.value, ctx.ownPaths));
    if (urls.length || FETCH_TARGET_RE.test(around)) add(fromWords, 'url_fetching', at, `the objective asks to fetch something ("${foldedVerb[0].slice(0, 60)}")`);
  }
  const checks: Array<[RegExp[], UnsupportedCategory]> = [
    [[DOMAIN], 'domain_registration_lookup'],
    [[BROWSING], 'browsing'],
    [[SCREENSHOT], 'screenshots'],
    [[WALLET, SIGN_IN_FOR_ME], 'wallet_signing'],
    [[REFUND], 'refunds'],
    [MCP_PAYER, 'mcp_payer'],
    [SUPPLIER, 'non_allowlisted_supplier'],
  ];
  for (const [res, category] of checks) {
    for (const re of res) {
      const m = re.exec(text);
      if (m) {
        add(fromWords, category, at, `the objective asks for "${m[0].slice(0, 80)}"`);
        break;
      }
    }
  }
  for (const [category, re] of COMPILED_CATEGORY_TERMS) {
    if (fromWords.some((f) => f.category === category)) continue;
    const m = re.exec(folded);
    if (m) add(fromWords, category, at, `the objective asks for "${m[0].slice(0, 80)}"`);
  }
  if (!fromWords.some((f) => f.category === 'wallet_signing')) {
    const m = SIGN_FOLDED.exec(folded) ?? SEND_FOLDED.exec(folded) ?? SIGN_CJK_FOLDED.exec(folded);
    if (m) add(fromWords, 'wallet_signing', at, `the objective asks for "${m[0].slice(0, 80)}"`);
  }
  if (!fromWords.some((f) => f.category === 'domain_registration_lookup')) {
    const m = DOMAIN_AVAILABLE.exec(folded) ?? DOMAIN_OWNER.exec(folded);
    if (m) add(fromWords, 'domain_registration_lookup', at, `the objective asks about a domain name ("${m[0].slice(0, 80)}")`);
  }
  if (!fromWords.some((f) => f.category === 'browsing')) {
    const m = SEARCH_ENGINE_FOLDED.exec(folded);
    if (m) add(fromWords, 'browsing', at, `the objective asks for a web search ("${m[0].slice(0, 80)}")`);
  }
  if (!fromWords.some((f) => f.category === 'mcp_payer')) {
    const m = MCP_PAYS_FOLDED.exec(folded) ?? MCP_FOR_ME_FOLDED.exec(folded);
    if (m) add(fromWords, 'mcp_payer', at, `the objective asks the MCP endpoint to pay ("${m[0].slice(0, 80)}")`);
  }
  const pay = PAY_ADDRESS.exec(text);
  if (pay && pay[1]!.toLowerCase() !== ctx.payTo.toLowerCase()) add(fromWords, 'non_allowlisted_supplier', at, `the objective asks to pay ${pay[1]}, not the service's payee ${ctx.payTo}`);

  // "Sign this SIWE message so I can log in": logging in is why the signature is wanted; the signing is what is asked.
  const signing = fromWords.some((f) => f.category === 'wallet_signing');
  const loginOnly = (f: Finding) => f.category === 'browsing' && LOGIN_WORDS.test(f.detail.message ?? '');
  if (signing) for (let i = fromWords.length - 1; i >= 0; i--) if (loginOnly(fromWords[i]!)) fromWords.splice(i, 1);

  const order = UNSUPPORTED.map((u) => u.category);
  const byOrder = (a: Finding, b: Finding) => order.indexOf(a.category) - order.indexOf(b.category);
  return [...fromWords.sort(byOrder), ...fromKeys.sort(byOrder)];
}
