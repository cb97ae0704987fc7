/**
 * The outcome router reads what agents write, in ten languages, without a
 * model: a table of objectives (each supported outcome and each refused
 * category, in English, Spanish, Portuguese, French, German, Italian, Dutch,
 * Chinese, Japanese and Korean), colours as people write them, routes the
 * inputs speak for, compositions, keys nested inside data that must not
 * refuse, and changes-since without a cursor. In process: the planner is a
 * pure function of the request (the HTTP path is covered by router-quote).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CATALOG } from '../capabilities/index.js';
import { OutcomeRouter, errorBodyOf } from './planner.js';
import { changesSinceReal, routerTestPayment } from '../../test/support/router-fixtures.js';

const payment = routerTestPayment;
const changesSince = changesSinceReal;

const router = new OutcomeRouter([...CATALOG, changesSince], payment);

const C = 'accessibility-contrast-calculator';
const K = 'data-compatibility-checker';
const X = 'catalog-offer-evidence-extractor';
const N = 'nft-metadata-uri-normalizer';
const S = 'intelligence-changes-since';

const CID = 'QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB';
const field = (name: string, type = 'string', required = true, nullable = false) => ({ name, type, required, nullable });
const CONTRACTS = { source_fields: [field('id', 'integer'), field('email', 'string', false, true)], target_fields: [field('id', 'number'), field('email')] };
const HTML =
  '<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Anvil","image":"a.jpg","offers":{"@type":"Offer","price":"119.90","priceCurrency":"USD"}}</script></head><body></body></html>';

type Want = string[] | string;
interface Row {
  lang: string;
  objective: string;
  inputs?: Record<string, unknown>;
  top?: Record<string, unknown>;
  want: Want;
  /** Extra check on the plan's native bodies. */
  bodies?: Array<Record<string, unknown>>;
}

const R = (lang: string, objective: string, want: Want, inputs?: Record<string, unknown>, bodies?: Row['bodies']): Row => ({ lang, objective, want, inputs, bodies });

const SHOT = 'screenshot_unsupported';
const BROWSE = 'browsing_unsupported';
const DOMAIN = 'domain_lookup_unsupported';
const FETCH = 'url_fetch_unsupported';
const SIGN = 'wallet_signing_unsupported';
const REFUND = 'refund_unsupported';
const SUPPLIER = 'supplier_not_allowlisted';
const MCP = 'mcp_payer_unsupported';
const BW = [{ foreground: '#333333', background: '#ffffff', large_text: false }];

const TABLE: Row[] = [
  // ── English ──
  R('en', 'Check the contrast of #333 on #fff', [C], undefined, BW),
  R('en', 'Is white text on navy readable for WCAG AA?', [C], undefined, [{ foreground: '#ffffff', background: '#000080', large_text: false }]),
  R('en', 'Are these two field contracts compatible?', [K], CONTRACTS),
  R('en', 'Pull the product offers and prices out of this page', [X], { html: HTML }),
  R('en', `Normalize the NFT token URI ipfs://ipfs/${CID}`, [N]),
  R('en', 'What changed in the machine economy since 2025-06-01?', [S]),
  R('en', 'Take a screenshot of the landing page', SHOT),
  R('en', 'Browse to the pricing page and click on signup', BROWSE),
  R('en', 'Is example.com available to register?', DOMAIN),
  R('en', 'Download https://example.com/product and extract the offers', FETCH),
  R('en', 'Sign this transaction with my wallet', SIGN),
  R('en', 'Refund my last payment', REFUND),
  R('en', 'Use a third-party provider for the contrast check of #000 on #fff', SUPPLIER),
  // ── Spanish ──
  R('es', 'Comprueba el contraste de #333 sobre #fff', [C], undefined, BW),
  R('es', '¿Es legible el texto negro sobre fondo blanco? Verifica el contraste WCAG', [C], undefined, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('es', '¿Son compatibles estos dos contratos de datos?', [K], CONTRACTS),
  R('es', 'Extrae las ofertas y precios del producto de este HTML', [X], { html: HTML }),
  R('es', `Normaliza la URI de metadatos del NFT ipfs://${CID}`, [N]),
  R('es', '¿Qué ha cambiado en la economía de las máquinas desde 2025-06-01?', [S]),
  R('es', 'Toma una captura de pantalla de la página de inicio', SHOT),
  R('es', 'Navega a la página de precios y haz clic en registrarse', BROWSE),
  R('es', '¿Está disponible el dominio ejemplo.com para registrarlo?', DOMAIN),
  R('es', 'Descarga la página https://example.com/producto y extrae las ofertas', FETCH),
  R('es', 'Firma esta transacción con mi cartera', SIGN),
  R('es', 'Quiero un reembolso de mi último pago', REFUND),
  R('es', 'Usa un proveedor externo para calcular el contraste de #000 sobre #fff', SUPPLIER),
  R('es', 'Que el servidor MCP pague el contraste de #000 sobre #fff', MCP),
  // ── Portuguese ──
  R('pt', 'Verifique o contraste de #333 sobre #fff', [C], undefined, BW),
  R('pt', 'O texto branco sobre azul-marinho tem contraste suficiente? white on navy', [C]),
  R('pt', 'Estes contratos de dados são compatíveis?', [K], CONTRACTS),
  R('pt', 'Extraia as ofertas e os preços do produto deste HTML', [X], { html: HTML }),
  R('pt', `Normalize a URI de metadados do NFT ar://abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG`, [N]),
  R('pt', 'O que mudou na economia das máquinas desde 2025-06-01?', [S]),
  R('pt', 'Faça uma captura de tela da página inicial', SHOT),
  R('pt', 'Navegue até a página de preços e clique em cadastrar', BROWSE),
  R('pt', 'O domínio exemplo.com.br está disponível para registro?', DOMAIN),
  R('pt', 'Baixe a página https://example.com/produto e extraia as ofertas', FETCH),
  R('pt', 'Assine esta transação com minha carteira', SIGN),
  R('pt', 'Quero o reembolso do meu último pagamento', REFUND),
  R('pt', 'Use um fornecedor externo para verificar o contraste de #000 sobre #fff', SUPPLIER),
  // ── French ──
  R('fr', 'Vérifie le contraste de #333 sur #fff', [C], undefined, BW),
  R('fr', 'Le texte noir sur fond blanc est-il lisible ? Contrôle le contraste', [C], undefined, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('fr', 'Ces deux contrats de données sont-ils compatibles ?', [K], CONTRACTS),
  R('fr', 'Extrais les offres et les prix du produit de ce HTML', [X], { html: HTML }),
  R('fr', `Normalise l’URI de métadonnées du NFT ipfs://${CID}`, [N]),
  R('fr', "Qu'est-ce qui a changé dans l'économie des machines depuis 2025-06-01 ?", [S]),
  R('fr', "Fais une capture d'écran de la page d'accueil", SHOT),
  R('fr', 'Navigue vers la page des tarifs et clique sur inscription', BROWSE),
  R('fr', 'Le nom de domaine exemple.fr est-il disponible ?', DOMAIN),
  R('fr', 'Télécharge la page https://example.com/produit et extrais les offres', FETCH),
  R('fr', 'Signe cette transaction avec mon portefeuille', SIGN),
  R('fr', 'Je veux être remboursé de mon dernier paiement', REFUND),
  R('fr', 'Utilise un fournisseur externe pour le contraste de #000 sur #fff', SUPPLIER),
  // ── German ──
  R('de', 'Kontrast prüfen: #333 auf #fff', [C], undefined, BW),
  R('de', 'Ist schwarzer Text auf weißem Hintergrund gut lesbar? Bitte Kontrastverhältnis berechnen', [C], undefined, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('de', 'Sind diese beiden Datenverträge kompatibel?', [K], CONTRACTS),
  R('de', 'Extrahiere die Angebote und Produktpreise aus diesem HTML', [X], { html: HTML }),
  R('de', `Normalisiere die Metadaten-URI des NFT ipfs://${CID}`, [N]),
  R('de', 'Was hat sich in der Maschinenökonomie seit 2025-06-01 geändert?', [S]),
  R('de', 'Mach einen Screenshot der Startseite', SHOT),
  R('de', 'Navigiere zur Preisseite und klicke auf Registrieren', BROWSE),
  R('de', 'Ist die Domain beispiel.de noch frei?', DOMAIN),
  R('de', 'Lade die Seite https://example.com/produkt herunter und extrahiere die Angebote', FETCH),
  R('de', 'Signiere diese Transaktion mit meinem privaten Schlüssel', SIGN),
  R('de', 'Ich möchte eine Rückerstattung meiner letzten Zahlung', REFUND),
  R('de', 'Nutze einen Drittanbieter für den Kontrast von #000 auf #fff', SUPPLIER),
  R('de', 'Der MCP-Server soll den Kontrast von #000 auf #fff bezahlen', MCP),
  // ── Italian ──
  R('it', 'Controlla il contrasto di #333 su #fff', [C], undefined, BW),
  R('it', 'Il testo nero su sfondo bianco è leggibile? Verifica il contrasto', [C], undefined, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('it', 'Questi due contratti dei dati sono compatibili?', [K], CONTRACTS),
  R('it', 'Estrai le offerte e i prezzi del prodotto da questo HTML', [X], { html: HTML }),
  R('it', `Normalizza l'URI dei metadati dell'NFT ipfs://${CID}`, [N]),
  R('it', "Cosa è cambiato nell'economia delle macchine dal 2025-06-01?", [S]),
  R('it', 'Fai uno screenshot della home page', SHOT),
  R('it', 'Naviga alla pagina dei prezzi e clicca su registrati', BROWSE),
  R('it', 'Il dominio esempio.it è disponibile?', DOMAIN),
  R('it', 'Scarica la pagina https://example.com/prodotto ed estrai le offerte', FETCH),
  R('it', 'Firma questa transazione con il mio portafoglio', SIGN),
  R('it', 'Voglio un rimborso del mio ultimo pagamento', REFUND),
  R('it', 'Usa un fornitore esterno per il contrasto di #000 su #fff', SUPPLIER),
  // ── Dutch ──
  R('nl', 'Controleer het contrast van #333 op #fff', [C], undefined, BW),
  R('nl', 'Is zwarte tekst op een witte achtergrond leesbaar? Controleer het contrast', [C], undefined, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('nl', 'Zijn deze twee datacontracten compatibel?', [K], CONTRACTS),
  R('nl', 'Haal de aanbiedingen en productprijzen uit deze HTML', [X], { html: HTML }),
  R('nl', `Normaliseer de metadata-URI van de NFT ipfs://${CID}`, [N]),
  R('nl', 'Wat is er veranderd in de machine-economie sinds 2025-06-01?', [S]),
  R('nl', 'Maak een schermafbeelding van de startpagina', SHOT),
  R('nl', 'Navigeer naar de prijspagina en klik op aanmelden', BROWSE),
  R('nl', 'Is de domeinnaam voorbeeld.nl beschikbaar?', DOMAIN),
  R('nl', 'Download de pagina https://example.com/product en haal de aanbiedingen eruit', FETCH),
  R('nl', 'Onderteken deze transactie met mijn portemonnee', SIGN),
  R('nl', 'Ik wil mijn laatste betaling terugbetaald krijgen', REFUND),
  R('nl', 'Gebruik een externe leverancier voor het contrast van #000 op #fff', SUPPLIER),
  // ── Chinese ──
  R('zh', '检查 #333 在 #fff 上的对比度', [C], undefined, BW),
  R('zh', '白色背景上的黑色文字对比度够吗？', [C], undefined, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('zh', '这两个数据契约兼容吗？', [K], CONTRACTS),
  R('zh', '从这个HTML中提取产品报价和价格', [X], { html: HTML }),
  R('zh', `规范化这个NFT元数据URI ipfs://${CID}`, [N]),
  R('zh', '自2025-06-01以来机器经济有什么变化？', [S]),
  R('zh', '给首页截图', SHOT),
  R('zh', '浏览定价页面并点击注册', BROWSE),
  R('zh', '查询域名 example.cn 是否可以注册', DOMAIN),
  R('zh', '抓取网页 https://example.com/product 并提取报价', FETCH),
  R('zh', '用我的钱包签署交易', SIGN),
  R('zh', '请给我上一笔付款退款', REFUND),
  R('zh', '用第三方供应商计算 #000 在 #fff 上的对比度', SUPPLIER),
  // ── Japanese ──
  R('ja', '#fff の上の #333 のコントラストを確認して', [C], undefined, BW),
  R('ja', '白い背景に黒い文字のコントラスト比は十分ですか', [C], undefined, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('ja', 'この2つのデータ契約は互換性がありますか', [K], CONTRACTS),
  R('ja', 'このHTMLから商品価格とオファー情報を抽出して', [X], { html: HTML }),
  R('ja', `このNFTのメタデータURIを正規化して ipfs://${CID}`, [N]),
  R('ja', '2025-06-01以降のマシンエコノミーの変更点は？', [S]),
  R('ja', 'トップページのスクリーンショットを撮って', SHOT),
  R('ja', '料金ページをブラウザで開いて登録をクリックして', BROWSE),
  R('ja', 'ドメイン example.jp は登録できますか', DOMAIN),
  R('ja', 'https://example.com/product のページを取得してオファーを抽出して', FETCH),
  R('ja', 'このトランザクションに署名して', SIGN),
  R('ja', '前回の支払いを返金してください', REFUND),
  R('ja', 'サードパーティのAPIで #000 と #fff のコントラストを計算して', SUPPLIER),
  // ── Korean ──
  R('ko', '#fff 위의 #333 명암비를 확인해 주세요', [C], undefined, BW),
  R('ko', '흰색 배경 위의 검은색 텍스트의 명암 대비가 충분한가요?', [C], undefined, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('ko', '이 두 데이터 계약이 호환되나요?', [K], CONTRACTS),
  R('ko', '이 HTML에서 상품 가격과 오퍼를 추출해 주세요', [X], { html: HTML }),
  R('ko', `이 NFT 메타데이터 URI를 정규화해 주세요 ipfs://${CID}`, [N]),
  R('ko', '2025-06-01 이후 머신 이코노미의 변경 사항은?', [S]),
  R('ko', '홈페이지 스크린샷을 찍어 주세요', SHOT),
  R('ko', '가격 페이지로 이동해서 가입 버튼을 클릭해 주세요', BROWSE),
  R('ko', '도메인 example.kr 을 등록할 수 있나요?', DOMAIN),
  R('ko', 'https://example.com/product 페이지를 크롤링해서 오퍼를 추출해 주세요', FETCH),
  R('ko', '이 트랜잭션에 서명해 주세요', SIGN),
  R('ko', '지난 결제를 환불해 주세요', REFUND),
  R('ko', '외부 공급자를 사용해서 #000 과 #fff 의 명암비를 계산해 주세요', SUPPLIER),
];

/** Colours as people write them, in objectives and in inputs, normalised to the native #rrggbb. */
const COLOURS: Row[] = [
  R('en', '#333 on #fff', [C], undefined, BW),
  R('en', 'contrast of rgb(51, 51, 51) on rgb(255,255,255)', [C], undefined, BW),
  R('en', 'contrast of rgba(51, 51, 51, 1) over white', [C], undefined, BW),
  R('en', 'light grey text on a dark slate gray background', [C], undefined, [{ foreground: '#d3d3d3', background: '#2f4f4f', large_text: false }]),
  R('en', 'Is rebeccapurple on white OK for large text?', [C], undefined, [{ foreground: '#663399', background: '#ffffff', large_text: true }]),
  R('en', 'contrast please', [C], { foreground: 'navy', background: '#FFF' }, [{ foreground: '#000080', background: '#ffffff', large_text: false }]),
  R('en', 'contrast please', [C], { fg: 'rgb(0 0 0)', bg: 'White' }, [{ foreground: '#000000', background: '#ffffff', large_text: false }]),
  R('en', 'check these pairs', [C], { pairs: ['black on white', ['#333', 'ivory'], { foreground: 'maroon', background: 'rgb(100%, 100%, 100%)' }] }, [
    { foreground: '#000000', background: '#ffffff', large_text: false },
    { foreground: '#333333', background: '#fffff0', large_text: false },
    { foreground: '#800000', background: '#ffffff', large_text: false },
  ]),
  R('en', '#111, #222 and #333 on #fff', [C], undefined, [
    { foreground: '#111111', background: '#ffffff', large_text: false },
    { foreground: '#222222', background: '#ffffff', large_text: false },
    { foreground: '#333333', background: '#ffffff', large_text: false },
  ]),
  R('en', 'white text on navy', [C], undefined, [{ foreground: '#ffffff', background: '#000080', large_text: false }]),
  R('en', "What's the contrast ratio between hsl(0, 0%, 20%) and white?", [C], undefined, BW),
  R('en', 'Is dark gray (#333) on white (#fff) accessible? Check contrast', [C], undefined, BW),
  R('en', 'colour pair readability: teal and white', [C], undefined, [{ foreground: '#008080', background: '#ffffff', large_text: false }]),
  R('fr', 'Le rouge sur blanc est-il conforme WCAG ?', [C], undefined, [{ foreground: '#ff0000', background: '#ffffff', large_text: false }]),
];

/** No keyword: the inputs say what is wanted. */
const INFERRED: Row[] = [
  R('en', 'What can you tell me about this?', [X], { html: HTML }),
  R('en', 'Please handle this', [K], CONTRACTS),
  R('en', 'Here you go', [N], { uri: `ipfs://${CID}` }),
  R('en', 'Here you go', [N], { uri: 'data:application/json;base64,eyJuYW1lIjoiQSJ9' }),
  R('en', 'Here you go', [N], { uri: 'ipns://k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8' }),
  R('en', 'Poll please', [S], { cursor: '2025-06-01T00:00:00Z' }),
  R('es', 'Haz lo que corresponda', [C], { foreground: '#000', background: '#fff' }),
  // The objective names one outcome; the inputs clearly carry another's: both, composed.
  R('en', 'Check the contrast of #000 on #fff', [C, X], { html: HTML }),
  R('en', 'Normalize this NFT URI', [K, N], { uri: `ipfs://${CID}`, ...CONTRACTS }),
  R('de', 'Kontrast prüfen: #000 auf #fff', [C, N], { uri: `ar://abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG` }),
];

/** Ordinary English words that look like other languages' refusal terms do not refuse. */
const NOT_REFUSALS: Row[] = [
  R('en', 'Surface the product offers in this HTML', [X], { html: HTML }),
  R('en', 'Visit each offer in the JSON-LD and list its price', [X], { html: HTML }),
  R('en', 'Extract the structured data; the page was downloaded earlier', [X], { html: HTML }),
  R('en', 'Normalize this NFT URI; the typed data is only context', [N], { uri: `ipfs://${CID}`, typed_data: { domain: { name: 'x' } } }),
  R('en', 'Any new developments in agent payments since 2025-09-01?', [S]),
  R('en', 'Give me the latest x402 ecosystem news', [S]),
];

/** Keys nested inside data never refuse; top-level intent still does. */
const NESTED: Row[] = [
  R('en', 'Normalize this NFT metadata URI', [N], { uri: `ipfs://${CID}`, meta: { domain: 'x' } }),
  R('en', 'Are these contracts compatible?', [K], { ...CONTRACTS, context: { domain: 'example.com', url: 'https://example.com', website: 'https://example.com' } }),
  R('en', 'Normalize the token URI from this EIP-712 order', [N], {
    uri: `ipfs://${CID}`,
    order: { domain: { name: 'Seaport', version: '1.5', chainId: 1, verifyingContract: '0x00000000000000ADc04C56Bf30aC9d3c0aAF14dC' }, types: {}, message: { screenshot: false } },
  }),
  R('en', 'contrast of #000 on #fff', [C], { notes: [{ link: 'https://example.com', whois: 'n/a' }] }),
  R('en', 'Normalize the NFT metadata URI', [N], { uri: `ipfs://${CID}`, domain: { name: 'Seaport', chainId: 1 } }),
  { lang: 'en', objective: 'Browse the site and list its products', top: { website: 'https://example.com' }, want: BROWSE },
  R('en', 'Check contrast of #000 on #fff', DOMAIN, { domain: 'example.com' }),
  R('en', 'Scrape product prices from amazon.com', FETCH),
  R('en', 'Open example.com in a browser and log in', BROWSE),
  R('de', 'Wer ist der Inhaber von example.de?', DOMAIN),
  R('pt', 'Firme o permit EIP-2612 para mim', SIGN),
  R('nl', 'Stuur 10 USDC naar 0x1234567890123456789012345678901234567890', SIGN),
  R('pt', 'Faz login no site e clica em comprar', BROWSE),
];

/** Optional inputs are not demanded. */
const CURSORLESS: Row[] = [
  R('en', 'changes since …', [S], undefined, [{ include_high_resolution: false }]),
  R('en', "What's new in the machine economy?", [S]),
  R('de', 'Was ist neu in der Maschinenökonomie?', [S]),
  R('zh', '机器经济有什么变化？', [S]),
  R('en', 'What changed since yesterday?', 'missing_inputs'),
];

function quote(row: Row) {
  return router.quote({ objective: row.objective, ...(row.inputs ? { inputs: row.inputs } : {}), ...(row.top ?? {}) });
}

function check(row: Row) {
  const r = quote(row);
  const label = `[${row.lang}] ${row.objective} ${row.inputs ? JSON.stringify(row.inputs).slice(0, 60) : ''}`;
  if (typeof row.want === 'string') {
    assert.equal(r.ok, false, `${label}: expected ${row.want}, got a plan for ${r.ok ? r.value.routes.map((x) => x.cap.id).join('+') : ''}`);
    if (!r.ok) {
      assert.equal(r.error.code, row.want, `${label}: ${r.error.message}`);
      if (r.error.status === 422) {
        const reason = errorBodyOf(r.error).error.reason;
        assert.ok(typeof reason === 'string' && /^[^.!?]+(?:\.[a-z0-9][^.!?]*)*[.!?]$/i.test(reason.replace(/"[^"]*"/g, '""').replace(/\b[\w-]+\.[a-z]{2,}\b/gi, 'x')), `${label}: one-sentence reason, got ${reason}`);
      }
    }
    return;
  }
  assert.ok(r.ok, `${label}: expected ${row.want.join('+')}, got ${r.ok ? '' : `${r.error.code}: ${r.error.message}`}`);
  if (!r.ok) return;
  assert.deepEqual(r.value.routes.map((x) => x.cap.id).sort(), [...row.want].sort(), label);
  if (row.bodies) assert.deepEqual(r.value.steps.map((s) => s.body), row.bodies, label);
  if (row.want.length > 1) assert.deepEqual(r.value.unusedInputs, [], `${label}: composed, nothing left unused`);
}

describe('the router in ten languages', () => {
  for (const lang of ['en', 'es', 'pt', 'fr', 'de', 'it', 'nl', 'zh', 'ja', 'ko']) {
    test(`${lang}: every supported outcome routes and every refused category is refused`, () => {
      for (const row of TABLE.filter((r) => r.lang === lang)) check(row);
    });
  }
  test('the table covers at least 150 objectives, every language, every outcome and every refusal', () => {
    const all = [...TABLE, ...COLOURS, ...INFERRED, ...NOT_REFUSALS, ...NESTED, ...CURSORLESS];
    assert.ok(all.length >= 150, `${all.length} rows`);
    for (const lang of ['en', 'es', 'pt', 'fr', 'de', 'it', 'nl', 'zh', 'ja', 'ko']) {
      const rows = TABLE.filter((r) => r.lang === lang);
      for (const cap of [C, K, X, N, S]) assert.ok(rows.some((r) => Array.isArray(r.want) && r.want.includes(cap)), `${lang} ${cap}`);
      for (const code of [SHOT, BROWSE, DOMAIN, FETCH, SIGN, REFUND, SUPPLIER]) assert.ok(rows.some((r) => r.want === code), `${lang} ${code}`);
    }
  });
});

test('colours as people write them: #rgb, CSS names, rgb() in objectives and inputs become #rrggbb', () => {
  for (const row of COLOURS) check(row);
});

test('the paid contrast route keeps its strict schema: only the router normalises', () => {
  const contrast = CATALOG.find((c) => c.id === C)!;
  const schema = contrast.inputSchema as { properties: { foreground: { pattern?: string } } };
  assert.ok(schema.properties.foreground.pattern, 'the native body still demands #RRGGBB');
  assert.ok(!new RegExp(schema.properties.foreground.pattern!).test('navy'));
});

test('inputs that speak for themselves route without a keyword, and compose with a named outcome', () => {
  for (const row of INFERRED) check(row);
});

test('English words that resemble other languages\' refusal terms do not refuse', () => {
  for (const row of NOT_REFUSALS) check(row);
});

test('keys nested inside data never refuse; top-level intent does, objective first', () => {
  for (const row of NESTED) check(row);
});

test('changes-since without a cursor routes (the feed starts from the beginning); clock-relative times are still asked for', () => {
  for (const row of CURSORLESS) check(row);
  const r = router.quote({ objective: 'changes since my last poll' });
  assert.ok(r.ok);
  assert.ok(r.value.assumptions.some((a) => /starts from the beginning/.test(a)));
});

test('every 422 the planner gives carries error.reason, one sentence', () => {
  const cases: unknown[] = [
    { objective: 'contrast of #000 on #fff', max_price: '1' },
    { objective: 'contrast', inputs: { pairs: Array.from({ length: 25 }, () => ['#000000', '#ffffff']) } },
    { objective: 'contrast of #000 on #fff', latency: 'interactive', evidence: 'sourced' },
    { objective: 'do these', inputs: { items: [{ colour: 'red' }] } },
    { objective: 'Write me a poem about the sea' },
    { objective: 'Normalize the NFT metadata URI' },
    { objective: 'Take a screenshot' },
  ];
  for (const c of cases) {
    const r = router.quote(c);
    assert.ok(!r.ok && r.error.status === 422, JSON.stringify(c));
    const reason = errorBodyOf(r.error).error.reason;
    assert.ok(typeof reason === 'string' && reason.length > 20, `${JSON.stringify(c)}: ${reason}`);
    assert.match(reason!.replace(/"[^"]*"/g, '""'), /^[^.!?]+[.!?]$/, reason);
  }
});

test('unused inputs explain themselves, one sentence each', () => {
  const r = router.quote({ objective: 'contrast of #000 on #fff', inputs: { colour_profile: 'srgb', text: 'hello' } });
  assert.ok(r.ok);
  assert.deepEqual(r.value.unusedExplained.map((u) => u.input), r.value.unusedInputs);
  for (const u of r.value.unusedExplained) assert.match(u.reason, /^[^.]+\.$/, u.reason);
});

test('negated wording does not refuse: "sin descargar", "ohne herunterzuladen", "取得せずに", "가져오지 않고", "不要抓取"', () => {
  for (const objective of [
    'Extrae las ofertas de este HTML sin descargar ninguna página',
    'Extrahiere die Angebote aus diesem HTML, ohne die Seite herunterzuladen',
    'ページを取得せずに、このHTMLから商品価格を抽出して',
    '페이지를 가져오지 않고 이 HTML에서 상품 가격을 추출해 주세요',
    '不要抓取网页，从这个HTML中提取产品价格',
  ]) {
    const r = router.quote({ objective, inputs: { html: HTML } });
    assert.ok(r.ok, `${objective}: ${r.ok ? '' : r.error.code}`);
  }
});

test('property: a "domain" key nested anywhere in the inputs never turns a supported route into a refusal', () => {
  const supported: Array<{ objective: string; inputs: Record<string, unknown> }> = [
    { objective: 'Normalize the NFT metadata URI', inputs: { uri: `ipfs://${CID}` } },
    { objective: 'contrast of #000 on #fff', inputs: {} },
    { objective: 'Are these contracts compatible?', inputs: { ...CONTRACTS } },
    { objective: 'Extract the product offers', inputs: { html: HTML } },
  ];
  const key = fc.constantFrom('domain', 'Domain', 'domain_name', 'domains', 'whois', 'url', 'website', 'screenshot', 'refund', 'signer');
  const leaf = fc.oneof(fc.string(), fc.integer(), fc.constant('example.com'), fc.constant(null));
  // A value with the key somewhere below the top level of inputs.
  const nested = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.tuple(key, leaf).map(([k, v]) => ({ [k]: v })),
      fc.tuple(key, tie('node')).map(([k, v]) => ({ [k]: v })),
      fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), tie('node')).map(([k, v]) => ({ [`x_${k}`]: v })),
      fc.array(tie('node'), { maxLength: 3 }),
    ),
  })).node;
  fc.assert(
    fc.property(fc.constantFrom(...supported), fc.string({ minLength: 1, maxLength: 10 }), nested, (base, name, value) => {
      const holder = `meta_${name.replace(/[^a-z]/gi, '') || 'x'}`;
      const before = router.quote(base);
      const after = router.quote({ objective: base.objective, inputs: { ...base.inputs, [holder]: value } });
      assert.ok(before.ok);
      assert.ok(after.ok, `${JSON.stringify(value)} → ${after.ok ? '' : after.error.code}`);
      assert.deepEqual(after.value.routes.map((x) => x.cap.id), before.value.routes.map((x) => x.cap.id));
    }),
    { numRuns: 300 },
  );
});
