/**
 * One colour vocabulary across the ten routed languages: the same pair of
 * colours, named in any of them (base names, compounds such as navy, dark
 * and light shades, German and Dutch compounds, CJK names) or written as
 * hex, quotes the same native body. A shade with no exact value is never
 * read as a neighbouring colour. In process: the planner is a pure function.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CATALOG } from '../capabilities/index.js';
import { OutcomeRouter } from './planner.js';
import { changesSinceReal, routerTestPayment } from '../../test/support/router-fixtures.js';
import { parseColour } from '../catalog/objective-text.js';

const router = new OutcomeRouter([...CATALOG, changesSinceReal], routerTestPayment);

type Lang = 'en' | 'es' | 'pt' | 'fr' | 'de' | 'it' | 'nl' | 'zh' | 'ja' | 'ko';

/** Each colour's CSS value and its name in every language, as people write it. */
const COLOURS: ReadonlyArray<{ hex: string; names: Record<Lang, string> }> = [
  { hex: '#ffffff', names: { en: 'white', es: 'blanco', pt: 'branco', fr: 'blanc', de: 'weiß', it: 'bianco', nl: 'wit', zh: '白色', ja: '白色', ko: '흰색' } },
  { hex: '#000000', names: { en: 'black', es: 'negro', pt: 'preto', fr: 'noir', de: 'schwarz', it: 'nero', nl: 'zwart', zh: '黑色', ja: '黒色', ko: '검은색' } },
  { hex: '#808080', names: { en: 'grey', es: 'gris', pt: 'cinza', fr: 'gris', de: 'grau', it: 'grigio', nl: 'grijs', zh: '灰色', ja: 'グレー', ko: '회색' } },
  { hex: '#ff0000', names: { en: 'red', es: 'rojo', pt: 'vermelho', fr: 'rouge', de: 'rot', it: 'rosso', nl: 'rood', zh: '红色', ja: '赤色', ko: '빨간색' } },
  { hex: '#0000ff', names: { en: 'blue', es: 'azul', pt: 'azul', fr: 'bleu', de: 'blau', it: 'blu', nl: 'blauw', zh: '蓝色', ja: '青色', ko: '파란색' } },
  { hex: '#008000', names: { en: 'green', es: 'verde', pt: 'verde', fr: 'vert', de: 'grün', it: 'verde', nl: 'groen', zh: '绿色', ja: '緑色', ko: '초록색' } },
  { hex: '#ffff00', names: { en: 'yellow', es: 'amarillo', pt: 'amarelo', fr: 'jaune', de: 'gelb', it: 'giallo', nl: 'geel', zh: '黄色', ja: '黄色', ko: '노란색' } },
  { hex: '#000080', names: { en: 'navy blue', es: 'azul marino', pt: 'azul-marinho', fr: 'bleu marine', de: 'marineblau', it: 'blu navy', nl: 'marineblauw', zh: '藏青色', ja: '紺色', ko: '남색' } },
  { hex: '#00008b', names: { en: 'dark blue', es: 'azul oscuro', pt: 'azul escuro', fr: 'bleu foncé', de: 'dunkelblau', it: 'blu scuro', nl: 'donkerblauw', zh: '深蓝色', ja: '濃い青', ko: '진한 파랑' } },
  { hex: '#d3d3d3', names: { en: 'light grey', es: 'gris claro', pt: 'cinza claro', fr: 'gris clair', de: 'hellgrau', it: 'grigio chiaro', nl: 'lichtgrijs', zh: '浅灰色', ja: '薄い灰色', ko: '연한 회색' } },
  { hex: '#006400', names: { en: 'dark green', es: 'verde oscuro', pt: 'verde escuro', fr: 'vert foncé', de: 'dunkelgrün', it: 'verde scuro', nl: 'donkergroen', zh: '深绿色', ja: '濃い緑', ko: '진한 초록색' } },
  { hex: '#add8e6', names: { en: 'light blue', es: 'azul claro', pt: 'azul claro', fr: 'bleu clair', de: 'hellblau', it: 'blu chiaro', nl: 'lichtblauw', zh: '浅蓝色', ja: '薄い青', ko: '연한 파랑' } },
];

/** "Text in {fg} on {bg}: enough WCAG contrast?", as each language writes it. */
const TEMPLATES: Record<Lang, (fg: string, bg: string) => string> = {
  en: (fg, bg) => `Is ${fg} text on a ${bg} background readable? Check the WCAG contrast.`,
  es: (fg, bg) => `¿El texto ${fg} sobre fondo ${bg} cumple el contraste WCAG?`,
  pt: (fg, bg) => `O texto ${fg} sobre fundo ${bg} tem contraste suficiente pela WCAG?`,
  fr: (fg, bg) => `Le texte ${fg} sur fond ${bg} a-t-il un contraste WCAG suffisant ?`,
  de: (fg, bg) => `Schrift ${fg} auf Hintergrund ${bg}: reicht der Kontrast nach WCAG?`,
  it: (fg, bg) => `Il testo ${fg} su sfondo ${bg} ha un contrasto WCAG sufficiente?`,
  nl: (fg, bg) => `Heeft tekst ${fg} op achtergrond ${bg} genoeg contrast volgens WCAG?`,
  zh: (fg, bg) => `${bg}背景上的${fg}文字的对比度符合WCAG吗？`,
  ja: (fg, bg) => `${bg}の背景に${fg}の文字、コントラスト比はWCAGを満たしますか？`,
  ko: (fg, bg) => `${bg} 배경에 ${fg} 글자의 명암비가 WCAG 기준을 충족하나요?`,
};
const LANGS = Object.keys(TEMPLATES) as Lang[];

function quotedBody(objective: string): unknown {
  const parsed = router.readValue({ objective });
  assert.ok(parsed.ok, objective);
  const plan = router.plan(parsed.value);
  if (!plan.ok) return { refused: plan.error.code, details: plan.error.details };
  return plan.value.steps.map((s) => ({ capability: s.route.cap.id, body: s.body }));
}

describe('one colour vocabulary across the ten languages', () => {
  test('every name in the table reads as its colour on its own (inputs.foreground written as a name)', () => {
    for (const c of COLOURS) for (const lang of LANGS) assert.equal(parseColour(c.names[lang]), c.hex, `${lang} "${c.names[lang]}"`);
  });

  test('property: the same pair named in any language, or as hex, quotes the same body', () => {
    const pair = fc.tuple(fc.integer({ min: 0, max: COLOURS.length - 1 }), fc.integer({ min: 0, max: COLOURS.length - 1 })).filter(([a, b]) => a !== b);
    fc.assert(
      fc.property(pair, fc.constantFrom(...LANGS), fc.constantFrom(...LANGS), ([f, b], l1, l2) => {
        const fg = COLOURS[f]!;
        const bg = COLOURS[b]!;
        const expected = [{ capability: 'accessibility-contrast-calculator', body: { foreground: fg.hex, background: bg.hex, large_text: false } }];
        assert.deepEqual(quotedBody(TEMPLATES[l1](fg.names[l1], bg.names[l1])), expected, `${l1}: ${TEMPLATES[l1](fg.names[l1], bg.names[l1])}`);
        assert.deepEqual(quotedBody(TEMPLATES[l2](fg.names[l2], bg.names[l2])), expected, `${l2}`);
        assert.deepEqual(quotedBody(TEMPLATES.en(fg.hex, bg.hex)), expected, 'as hex');
      }),
      { numRuns: 300, seed: 2026 },
    );
  });

  test('a shade with no exact value is asked for, never read as a neighbouring colour', () => {
    for (const objective of [
      'dark yellow text on white: WCAG AA?',
      'Is light red on black readable? contrast please',
      '¿Texto amarillo oscuro sobre blanco cumple el contraste?',
      'Kontrast: dunkelgelb auf weiß',
      'contraste du texte rouge clair sur fond noir',
      'pastel blue on white, WCAG contrast',
    ]) {
      const answer = quotedBody(objective) as { refused?: string; details?: Array<{ message?: string }> };
      assert.equal(answer.refused, 'missing_inputs', objective);
      assert.match(answer.details![0]!.message!, /no exact value/, objective);
    }
  });

  test('"navy blue" is one colour, not two', () => {
    assert.deepEqual(quotedBody('contrast of white text on navy blue'), [{ capability: 'accessibility-contrast-calculator', body: { foreground: '#ffffff', background: '#000080', large_text: false } }]);
  });

  test('near misses of the new rules still quote: the buyer paying its own 402, SIWE named but not signed, a name beside its hex, single-character names as inputs', () => {
    const BW = [{ capability: 'accessibility-contrast-calculator', body: { foreground: '#000000', background: '#ffffff', large_text: false } }];
    assert.deepEqual(quotedBody("Check the contrast of #000 on #fff for me; I'll pay the 402 myself"), BW);
    assert.deepEqual(quotedBody('Is the text on this SIWE-style login page readable? contrast of #000 on #fff'), BW);
    assert.deepEqual(quotedBody('Google brand blue #4285f4 on white: contrast?'), [{ capability: 'accessibility-contrast-calculator', body: { foreground: '#4285f4', background: '#ffffff', large_text: false } }]);
    assert.deepEqual(quotedBody('Verifique o contraste de #000 no fundo #fff'), BW);
    for (const [name, hex] of [['白', '#ffffff'], ['黒', '#000000'], ['紺', '#000080'], ['濃い赤', '#8b0000'], ['深红色', '#8b0000'], ['verde-escuro', '#006400'], ['azul-celeste', '#87ceeb']]) assert.equal(parseColour(name!), hex, name);
  });

  test('wordings a third set found (each fixed by a rule, not a row): inflected compounds, 配, SIWE and pay-for-me in other languages, labelled field lists', () => {
    const quote = (fg: string, bg: string) => [{ capability: 'accessibility-contrast-calculator', body: { foreground: fg, background: bg, large_text: false } }];
    assert.deepEqual(quotedBody('Kontrast: weißer Text auf marineblauem Hintergrund'), quote('#ffffff', '#000080'));
    assert.deepEqual(quotedBody('主按钮现在是白色文字配深红色背景。请检查对比度。'), quote('#ffffff', '#8b0000'));
    assert.deepEqual(quotedBody('Die Navigationsleiste ist jetzt weiße Schrift auf dunkelgrün. Prüfe den Kontrast.'), quote('#ffffff', '#006400'));
    assert.deepEqual(quotedBody('I signed in with my wallet earlier; now check contrast of #222 on #ddd'), quote('#222222', '#dddddd'));
    const refused = (objective: string) => (quotedBody(objective) as { refused?: string }).refused;
    for (const o of ['Signiere diese SIWE-Nachricht, damit ich mich einloggen kann', 'Onderteken dit SIWE-bericht zodat ik kan inloggen', '签名这条SIWE消息，这样我就能登录', 'Sign in with Ethereum on my behalf']) assert.equal(refused(o), 'wallet_signing_unsupported', o);
    for (const o of ['Just pay the x402 challenge on my behalf and give me the contrast of #111 on #eee', 'Fai pagare il 402 al server MCP per me e controlla il contrasto di #000 su #fff']) assert.equal(refused(o), 'mcp_payer_unsupported', o);
    const fields = JSON.stringify([{ name: 'id', type: 'integer', required: true, nullable: false }]);
    const checked = quotedBody(`Kompatibel? Quelle: ${fields} Ziel: ${fields}`) as Array<{ capability: string }>;
    assert.equal(checked[0]?.capability, 'data-compatibility-checker');
  });
});
