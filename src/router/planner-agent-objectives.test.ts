/**
 * Objectives as agents actually write them, in the ten routed languages: colour
 * names with shades and compounds, refusals worded the way people ask (log in
 * with a signature, open an admin, google something, have the MCP endpoint
 * pay, convert a colour), typos, inputs pasted into the objective (JSON,
 * `name: value`, Product JSON-LD) and long instructions around the ask.
 * 150 rows, 15 per language; each names the route and the native body it
 * must quote, or the refusal code. The set is scored as a whole (at least
 * 146 right, every miss printed) and kept apart from the tables the router
 * was tuned on (planner-multilingual.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOG } from '../capabilities/index.js';
import { OutcomeRouter } from './planner.js';
import { changesSinceReal, routerTestPayment } from '../../test/support/router-fixtures.js';

const router = new OutcomeRouter([...CATALOG, changesSinceReal], routerTestPayment);

const C = 'accessibility-contrast-calculator';
const K = 'data-compatibility-checker';
const X = 'catalog-offer-evidence-extractor';
const N = 'nft-metadata-uri-normalizer';
const S = 'intelligence-changes-since';
const BROWSE = 'browsing_unsupported';
const SIGN = 'wallet_signing_unsupported';
const MCP = 'mcp_payer_unsupported';
const FETCH = 'url_fetch_unsupported';
const NONE = 'no_matching_outcome';
const ASK = 'missing_inputs';

const CID = 'QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB';
const F = (name: string, type: string, required = true, nullable = false) => ({ name, type, required, nullable });
const SRC = [F('id', 'integer'), F('email', 'string', false, true)];
const TGT = [F('id', 'number'), F('email', 'string')];
const CONTRACTS_JSON = JSON.stringify({ source_fields: SRC, target_fields: TGT });
const LD = '{"@context":"https://schema.org","@type":"Product","name":"Anvil","sku":"A-1","offers":{"@type":"Offer","price":"119.90","priceCurrency":"USD"}}';
const PAGE = `<html><head><script type="application/ld+json">${LD}</script></head><body></body></html>`;

/** A quote for `route` whose first native body has these fields (a subset), or a refusal with this code. */
type Want = { route: string; body?: Record<string, unknown> } | { refuse: string };
interface Row {
  lang: string;
  objective: string;
  want: Want;
}
const q = (lang: string, objective: string, route: string, body?: Record<string, unknown>): Row => ({ lang, objective, want: { route, ...(body ? { body } : {}) } });
const no = (lang: string, objective: string, refuse: string): Row => ({ lang, objective, want: { refuse } });
const pair = (foreground: string, background: string, large_text = false) => ({ foreground, background, large_text });

const ROWS: Row[] = [
  // ── English ──
  q('en', 'Is dark blue text on a light grey background OK for WCAG AA?', C, pair('#00008b', '#d3d3d3')),
  q('en', 'white on navy blue — enough contrast?', C, pair('#ffffff', '#000080')),
  q('en', 'chekc the contrst of #333 on #fafafa pls', C, pair('#333333', '#fafafa')),
  q('en', 'contrast of #767676 on #ffffff, large_text: true', C, pair('#767676', '#ffffff', true)),
  q('en', 'I am an agent auditing a design system. The button label is white and its fill is dark green. Please tell me whether this passes WCAG 2.x AA for normal text and quote the call.', C, pair('#ffffff', '#006400')),
  no('en', 'Ask the MCP server to pay the 402 for me, then check #000 on #fff', MCP),
  no('en', 'sign this SIWE message so I can log in', SIGN),
  no('en', 'Open my Shopify admin and click Export on the products tab', BROWSE),
  no('en', 'google the cheapest x402 facilitator', BROWSE),
  no('en', 'convert #ff8800 to CMYK', NONE),
  q('en', `Are these compatible? ${CONTRACTS_JSON}`, K, { source_fields: SRC, target_fields: TGT }),
  q('en', `Extract the offers from this JSON-LD: ${LD}`, X),
  q('en', `We are migrating token metadata. Normalise this tokenURI so our indexer stores one canonical form: ipfs://ipfs/${CID}`, N),
  q('en', 'Give me the machine-economy changes since 2026-10-01 as material deltas', S),
  no('en', 'Download https://shop.example/product/1 and pull out the prices', FETCH),
  // ── Spanish ──
  q('es', '¿El texto azul oscuro sobre blanco cumple el contraste WCAG AA?', C, pair('#00008b', '#ffffff')),
  q('es', 'Contraste de texto blanco sobre azul marino', C, pair('#ffffff', '#000080')),
  q('es', '¿Es legible gris claro sobre negro? revisa el contraste', C, pair('#d3d3d3', '#000000')),
  q('es', 'comprueba el contarste de #222 sobre #eee', C, pair('#222222', '#eeeeee')),
  q('es', 'Soy un agente de compras. Antes de publicar el banner necesito saber si el texto amarillo sobre fondo negro cumple WCAG; dame la cotización.', C, pair('#ffff00', '#000000')),
  no('es', 'Que el servidor MCP pague el 402 por mí y calcule el contraste de #000 sobre #fff', MCP),
  no('es', 'Firma este mensaje SIWE para que pueda iniciar sesión', SIGN),
  no('es', 'Abre la página de administración de mi tienda y haz clic en exportar', BROWSE),
  no('es', 'Busca en Google el facilitador más barato', BROWSE),
  no('es', 'convierte #ff8800 a CMYK', NONE),
  q('es', `¿Son compatibles estos contratos? ${CONTRACTS_JSON}`, K),
  q('es', `Extrae las ofertas de este JSON-LD: ${LD}`, X),
  q('es', `Normaliza la URI de metadatos del NFT ipfs://${CID}`, N),
  q('es', '¿Qué cambió en la economía de las máquinas desde 2026-10-01?', S),
  no('es', 'Descarga la página https://tienda.example/p/1 y extrae los precios', FETCH),
  // ── Portuguese ──
  q('pt', 'O texto azul-marinho sobre branco tem contraste suficiente?', C, pair('#000080', '#ffffff')),
  q('pt', 'Contraste de texto preto sobre cinza claro', C, pair('#000000', '#d3d3d3')),
  q('pt', 'verifique o contraste do texto verde escuro sobre fundo branco', C, pair('#006400', '#ffffff')),
  q('pt', 'verifque o contrate de #444 sobre #fff', C, pair('#444444', '#ffffff')),
  q('pt', 'Sou um agente de acessibilidade. Preciso saber se o título em vermelho sobre branco passa na WCAG; large_text: true', C, pair('#ff0000', '#ffffff', true)),
  no('pt', 'Peça ao servidor MCP para pagar o 402 por mim', MCP),
  no('pt', 'Assine esta mensagem SIWE para eu fazer login', SIGN),
  no('pt', 'Abra o painel da minha loja e clique em exportar', BROWSE),
  no('pt', 'Pesquise no Google o facilitador mais barato', BROWSE),
  no('pt', 'converta #ff8800 para CMYK', NONE),
  q('pt', `Estes contratos são compatíveis? ${CONTRACTS_JSON}`, K),
  q('pt', `Extraia as ofertas deste JSON-LD: ${LD}`, X),
  q('pt', `Normalize a URI do NFT ipfs://ipfs/${CID}`, N),
  q('pt', 'O que mudou na economia das máquinas desde 2026-10-01?', S),
  no('pt', 'Baixe a página https://loja.example/p/1 e extraia os preços', FETCH),
  // ── French ──
  q('fr', 'Le texte bleu foncé sur fond blanc a-t-il assez de contraste ?', C, pair('#00008b', '#ffffff')),
  q('fr', 'Contraste du texte blanc sur bleu marine', C, pair('#ffffff', '#000080')),
  q('fr', 'texte gris clair sur fond noir : contraste WCAG ?', C, pair('#d3d3d3', '#000000')),
  q('fr', 'vérifie le contarste de #555 sur #fff', C, pair('#555555', '#ffffff')),
  q('fr', "Je suis un agent qui audite une charte graphique. Le libellé est blanc et le bouton vert foncé : est-ce conforme WCAG AA pour du texte normal ? Donne-moi le devis.", C, pair('#ffffff', '#006400')),
  no('fr', 'Demande au serveur MCP de payer le 402 pour moi', MCP),
  no('fr', 'Signe ce message SIWE pour que je puisse me connecter', SIGN),
  no('fr', "Ouvre l'admin de ma boutique et clique sur exporter", BROWSE),
  no('fr', 'Cherche sur Google le facilitateur le moins cher', BROWSE),
  no('fr', 'convertis #ff8800 en CMJN (CMYK)', NONE),
  q('fr', `Ces contrats sont-ils compatibles ? ${CONTRACTS_JSON}`, K),
  q('fr', `Extrais les offres de ce JSON-LD : ${LD}`, X),
  q('fr', `Normalise l’URI du NFT ipfs://ipfs/${CID}`, N),
  q('fr', "Qu'est-ce qui a changé dans l'économie des machines depuis 2026-10-01 ?", S),
  no('fr', 'Télécharge la page https://boutique.example/p/1 et extrais les prix', FETCH),
  // ── German ──
  q('de', 'Reicht der Kontrast von dunkelblau auf weiß für WCAG AA?', C, pair('#00008b', '#ffffff')),
  q('de', 'Kontrast: weiße Schrift auf marineblau', C, pair('#ffffff', '#000080')),
  q('de', 'Kontrast von hellgrau auf schwarz prüfen', C, pair('#d3d3d3', '#000000')),
  q('de', 'prüfe den Kontrats von #333 auf #fff', C, pair('#333333', '#ffffff')),
  q('de', 'Ich bin ein Agent für Barrierefreiheit. Die Überschrift ist dunkelgrün auf weiß; prüfe den Kontrast für großen Text. large_text: true', C, pair('#006400', '#ffffff', true)),
  no('de', 'Der MCP-Server soll die 402 für mich bezahlen', MCP),
  no('de', 'Signiere diese SIWE-Nachricht, damit ich mich einloggen kann', SIGN),
  no('de', 'Öffne mein Shop-Admin und klicke auf Export', BROWSE),
  no('de', 'Google nach dem günstigsten Facilitator', BROWSE),
  no('de', 'rechne #ff8800 in CMYK um', NONE),
  q('de', `Sind diese Verträge kompatibel? ${CONTRACTS_JSON}`, K),
  q('de', `Extrahiere die Angebote aus diesem JSON-LD: ${LD}`, X),
  q('de', `Normalisiere die NFT-URI ipfs://ipfs/${CID}`, N),
  q('de', 'Was hat sich in der Maschinenökonomie seit 2026-10-01 geändert?', S),
  no('de', 'Lade die Seite https://shop.example/p/1 herunter und extrahiere die Preise', FETCH),
  // ── Italian ──
  q('it', 'Il testo blu scuro su sfondo bianco ha abbastanza contrasto?', C, pair('#00008b', '#ffffff')),
  q('it', 'Contrasto del testo bianco su blu navy', C, pair('#ffffff', '#000080')),
  q('it', 'testo grigio chiaro su nero: contrasto WCAG?', C, pair('#d3d3d3', '#000000')),
  q('it', 'verifica il contrsto di #666 su #fff', C, pair('#666666', '#ffffff')),
  q('it', 'Sono un agente che controlla una guida di stile. Il testo è giallo su sfondo nero: è conforme WCAG AA? Dammi il preventivo.', C, pair('#ffff00', '#000000')),
  no('it', 'Chiedi al server MCP di pagare il 402 per me', MCP),
  no('it', 'Firma questo messaggio SIWE così posso effettuare il login', SIGN),
  no('it', "Apri la pagina di amministrazione del mio negozio e clicca su esporta", BROWSE),
  no('it', 'Cerca su Google il facilitatore più economico', BROWSE),
  no('it', 'converti #ff8800 in CMYK', NONE),
  q('it', `Questi contratti sono compatibili? ${CONTRACTS_JSON}`, K),
  q('it', `Estrai le offerte da questo JSON-LD: ${LD}`, X),
  q('it', `Normalizza l'URI del NFT ipfs://ipfs/${CID}`, N),
  q('it', "Cosa è cambiato nell'economia delle macchine dal 2026-10-01?", S),
  no('it', 'Scarica la pagina https://negozio.example/p/1 ed estrai i prezzi', FETCH),
  // ── Dutch ──
  q('nl', 'Heeft donkerblauwe tekst op wit genoeg contrast?', C, pair('#00008b', '#ffffff')),
  q('nl', 'Contrast van witte tekst op marineblauw', C, pair('#ffffff', '#000080')),
  q('nl', 'lichtgrijs op zwart: WCAG-contrast?', C, pair('#d3d3d3', '#000000')),
  q('nl', 'controleer het contrats van #333 op #fff', C, pair('#333333', '#ffffff')),
  q('nl', 'Ik ben een agent die een huisstijl controleert. De knoptekst is wit op donkergroen; voldoet dat aan WCAG AA? Geef de offerte.', C, pair('#ffffff', '#006400')),
  no('nl', 'Laat de MCP-server de 402 voor mij betalen', MCP),
  no('nl', 'Onderteken dit SIWE-bericht zodat ik kan inloggen', SIGN),
  no('nl', 'Open de admin van mijn winkel en klik op exporteren', BROWSE),
  no('nl', 'Zoek op Google de goedkoopste facilitator', BROWSE),
  no('nl', 'zet #ff8800 om naar CMYK', NONE),
  q('nl', `Zijn deze contracten compatibel? ${CONTRACTS_JSON}`, K),
  q('nl', `Haal de aanbiedingen uit deze JSON-LD: ${LD}`, X),
  q('nl', `Normaliseer de NFT-URI ipfs://ipfs/${CID}`, N),
  q('nl', 'Wat is er veranderd in de machine-economie sinds 2026-10-01?', S),
  no('nl', 'Download de pagina https://winkel.example/p/1 en haal de prijzen eruit', FETCH),
  // ── Chinese ──
  q('zh', '白色背景上的深蓝色文字对比度符合WCAG吗？', C, pair('#00008b', '#ffffff')),
  q('zh', '浅灰色背景上的黑色文字，对比度够吗？', C, pair('#000000', '#d3d3d3')),
  q('zh', '藏青色背景上的白色文字的对比度', C, pair('#ffffff', '#000080')),
  q('zh', '检查 #333 在 #fff 上的对比度', C, pair('#333333', '#ffffff')),
  q('zh', '我是一个无障碍审计代理。按钮是深绿色背景上的白色文字，请确认是否符合WCAG AA并给出报价。', C, pair('#ffffff', '#006400')),
  no('zh', '让MCP服务器替我支付402', MCP),
  no('zh', '签名这条SIWE消息让我登录', SIGN),
  no('zh', '打开我的店铺后台并点击导出', BROWSE),
  no('zh', '上网搜索最便宜的促成者', BROWSE),
  no('zh', '把 #ff8800 转换为 CMYK', NONE),
  q('zh', `这两个数据契约兼容吗？${CONTRACTS_JSON}`, K),
  q('zh', `从这个 JSON-LD 提取报价：${LD}`, X),
  q('zh', `规范化这个NFT元数据URI ipfs://ipfs/${CID}`, N),
  q('zh', '自2026-10-01以来机器经济有哪些变化？', S),
  no('zh', '下载网页 https://shop.example/p/1 并提取价格', FETCH),
  // ── Japanese ──
  q('ja', '白い背景に紺色の文字、コントラスト比はWCAGを満たしますか？', C, pair('#000080', '#ffffff')),
  q('ja', '薄い灰色の背景に黒い文字のコントラスト', C, pair('#000000', '#d3d3d3')),
  q('ja', '白い背景に濃い青の文字のコントラストを確認して', C, pair('#00008b', '#ffffff')),
  q('ja', '#fff の背景に #333 の文字のコントラスト比', C, pair('#333333', '#ffffff')),
  q('ja', '私はアクセシビリティ監査エージェントです。ボタンは濃い緑の背景に白い文字です。WCAG AAを満たすか確認し、見積もりをください。', C, pair('#ffffff', '#006400')),
  no('ja', 'MCPサーバーに402を支払わせて', MCP),
  no('ja', 'ログインしたいのでこのSIWEメッセージに署名して', SIGN),
  no('ja', 'ショップの管理画面を開いてエクスポートをクリックして', BROWSE),
  no('ja', 'グーグルで検索して一番安いファシリテーターを教えて', BROWSE),
  no('ja', '#ff8800をCMYKに変換して', NONE),
  q('ja', `このデータ契約は互換性がありますか？${CONTRACTS_JSON}`, K),
  q('ja', `このJSON-LDからオファーを抽出して：${LD}`, X),
  q('ja', `このNFTのメタデータURIを正規化して ipfs://ipfs/${CID}`, N),
  q('ja', '2026-10-01以降のマシンエコノミーの変化は？', S),
  no('ja', 'https://shop.example/p/1 のページを取得して価格を抽出して', FETCH),
  // ── Korean ──
  q('ko', '흰색 배경에 진한 파랑 글자, 명암비가 WCAG를 충족하나요?', C, pair('#00008b', '#ffffff')),
  q('ko', '연한 회색 배경에 검은색 글자의 명암비', C, pair('#000000', '#d3d3d3')),
  q('ko', '남색 배경에 흰색 글자 명암비 확인', C, pair('#ffffff', '#000080')),
  q('ko', '#fff 배경에 #333 글자의 명암비', C, pair('#333333', '#ffffff')),
  q('ko', '저는 접근성 감사 에이전트입니다. 버튼은 진한 초록색 배경에 흰색 글자입니다. WCAG AA를 충족하는지 확인하고 견적을 주세요.', C, pair('#ffffff', '#006400')),
  no('ko', 'MCP 서버가 402를 대신 결제하게 해 줘', MCP),
  no('ko', '로그인할 수 있게 이 SIWE 메시지에 서명해 줘', SIGN),
  no('ko', '내 쇼핑몰 관리자 페이지를 열어서 내보내기를 클릭해', BROWSE),
  no('ko', '구글에서 검색해서 가장 싼 퍼실리테이터를 찾아줘', BROWSE),
  no('ko', '#ff8800를 CMYK로 변환해 줘', NONE),
  q('ko', `이 데이터 계약들이 호환되나요? ${CONTRACTS_JSON}`, K),
  q('ko', `이 JSON-LD에서 오퍼를 추출해 줘: ${LD}`, X),
  q('ko', `이 NFT 메타데이터 URI를 정규화해 줘 ipfs://ipfs/${CID}`, N),
  q('ko', '2026-10-01 이후 머신 이코노미의 변화는?', S),
  no('ko', 'https://shop.example/p/1 페이지를 가져와서 가격을 추출해 줘', FETCH),
];

/** What the router answered, as the rows state it. */
function answer(objective: string): Want & { body?: Record<string, unknown> } {
  const parsed = router.readValue({ objective });
  if (!parsed.ok) return { refuse: parsed.error.code };
  const plan = router.plan(parsed.value);
  if (!plan.ok) return { refuse: plan.error.code };
  return { route: plan.value.routes.map((r) => r.cap.id).join('+'), body: plan.value.steps[0]!.body as Record<string, unknown> };
}

function right(row: Row, got: ReturnType<typeof answer>): boolean {
  if ('refuse' in row.want) return 'refuse' in got && got.refuse === row.want.refuse;
  if (!('route' in got) || got.route !== row.want.route) return false;
  return Object.entries(row.want.body ?? {}).every(([k, v]) => JSON.stringify(got.body?.[k]) === JSON.stringify(v));
}

test('the set: 150 objectives, 15 in each of the ten languages, routes and refusals', () => {
  assert.equal(ROWS.length, 150);
  for (const lang of ['en', 'es', 'pt', 'fr', 'de', 'it', 'nl', 'zh', 'ja', 'ko']) assert.equal(ROWS.filter((r) => r.lang === lang).length, 15, lang);
  assert.equal(new Set(ROWS.map((r) => r.objective)).size, 150, 'no objective twice');
});

test('at least 146 of the 150 objectives as agents write them are answered right', (t) => {
  const misses = ROWS.map((row) => ({ row, got: answer(row.objective) })).filter(({ row, got }) => !right(row, got));
  for (const { row, got } of misses) t.diagnostic(`miss [${row.lang}] ${row.objective.slice(0, 90)} — wanted ${JSON.stringify(row.want)}, got ${JSON.stringify(got).slice(0, 200)}`);
  t.diagnostic(`${ROWS.length - misses.length} of ${ROWS.length} right`);
  assert.ok(ROWS.length - misses.length >= 146, `${ROWS.length - misses.length} of ${ROWS.length} right; misses:\n${misses.map(({ row, got }) => `[${row.lang}] ${row.objective.slice(0, 80)} → ${JSON.stringify(got).slice(0, 160)}`).join('\n')}`);
});
