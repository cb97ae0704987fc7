/**
 * Colour names as people write them in the ten routed languages: one
 * vocabulary, so "dark blue", "azul oscuro", "bleu foncé", "dunkelblau",
 * "donkerblauw", "深蓝色", "濃い青" and "진한 파랑" are the same colour.
 *
 * The rules, the same in every language:
 * - A base colour word stands for its CSS named colour ("azul" is `blue`).
 * - "dark" / "light" and their equivalents (before the colour, after it, or
 *   joined to it as in German and Dutch) make it CSS `dark<base>` /
 *   `light<base>` ("dark blue" is `darkblue` #00008b, "浅灰色" is `lightgray`).
 * - Other shade words (pale, deep, medium, royal, hot…) join the base when CSS
 *   has that name ("pale green" is `palegreen`).
 * - A modifier or shade with no CSS name ("dark yellow", "light red",
 *   "pastel blue") is *unread*: the reader reports the words and never drops
 *   the modifier, so a quote is never for a different colour than the buyer meant.
 * - Compound names are one colour: "navy blue", "azul marino",
 *   "azul-marinho", "bleu marine", "marineblau", "紺色", "남색" are `navy`.
 *
 * Text is matched after foldText (lower case, no diacritics): "foncé" is "fonce".
 */
import { CSS_NAMED_COLOURS } from './css-colours.js';

/** CSS base name → its words in every routed Latin-script language (inflected forms included). */
const BASES: ReadonlyArray<readonly [string, string]> = [
  ['white', 'white blanco blanca blancos blancas branco branca brancos blanc blanche blancs weiss weisse weissem weissen weisser weisses bianco bianca bianchi wit witte'],
  ['black', 'black negro negra negros preto preta pretos noir noire noirs schwarz schwarze schwarzem schwarzen schwarzer schwarzes nero nera neri zwart zwarte'],
  ['gray', 'gray grey gris grise cinza cinzento cinzenta grau graue grauem grauen grauer graues grigio grigia grigi grijs grijze'],
  ['red', 'red rojo roja rojos vermelho vermelha rouge rouges rot rote rotem roten roter rotes rosso rossa rossi rood rode'],
  ['blue', 'blue azul azules bleu bleue bleus blau blaue blauem blauen blauer blaues blu blauw blauwe'],
  ['green', 'green verde verdes vert verte verts grun grune grunem grunen gruner grunes groen groene'],
  ['yellow', 'yellow amarillo amarilla amarelo amarela jaune jaunes gelb gelbe gelbem gelben gelber gelbes giallo gialla gialli geel gele'],
  ['orange', 'orange naranja laranja arancione oranje'],
  ['purple', 'purple morado morada purpura roxo roxa paars paarse'],
  ['pink', 'pink rosa roze'],
  ['brown', 'brown marron marrom braun braune braunem braunen brauner braunes marrone bruin bruine'],
  ['cyan', 'cyan cian ciano'],
  ['magenta', 'magenta'],
  ['silver', 'silver plata prata silber silberne argento zilver'],
  ['gold', 'gold dorado dourado oro ouro goud'],
];

/** Compound names that are one colour, as folded words (a space also matches "-"). */
const COMPOUNDS: ReadonlyArray<readonly [string, string]> = [
  ['navy', 'navy blue|marine blue|azul marino|azul marinho|bleu marine|marineblau|marine blau|blu navy|blu marino|marineblauw|marine blauw'],
  ['skyblue', 'sky blue|bleu ciel|himmelblau|azul cielo|azul celeste|celeste|azul ceu|azzurro cielo|hemelsblauw'],
];

/** "dark" and "light" and their equivalents, as separate words. */
const DARK_WORDS = new Set('dark oscuro oscura oscuros escuro escura escuros fonce foncee fonces dunkel dunkle dunkles dunkler dunklen dunklem scuro scura scuri donker donkere'.split(' '));
const LIGHT_WORDS = new Set('light claro clara claros clair claire clairs hell helle helles heller hellen hellem chiaro chiara chiari licht lichte'.split(' '));
/** Joined to the base in one word (German, Dutch): "dunkelblau", "hellgrau", "donkerblauw", "lichtgrijs". */
const DARK_PREFIXES = ['dunkel', 'donker'];
const LIGHT_PREFIXES = ['hell', 'licht'];
/** Shade words other than dark/light: they join the base only where CSS has the name. */
const SHADE_WORDS: ReadonlyMap<string, string> = new Map(
  (
    [
      ['pale', 'pale palido palida pallido pallida bleek blass blasse'],
      ['deep', 'deep profundo profunda profond profonde tief tiefe'],
      ['medium', 'medium medio media'],
      ['royal', 'royal'],
      ['hot', 'hot'],
      ['dim', 'dim'],
      ['pastel', 'pastel pastello'],
      ['neon', 'neon'],
      ['vivid', 'vivid vivo viva vif vive intenso intensa intense'],
      ['baby', 'baby'],
      ['dusty', 'dusty'],
    ] as const
  ).flatMap(([shade, words]) => words.split(' ').map((w) => [w, shade] as [string, string])),
);

const BASE_OF: ReadonlyMap<string, string> = new Map(BASES.flatMap(([css, words]) => words.split(' ').map((w) => [w, css] as [string, string])));
const COMPOUND_OF: ReadonlyMap<string, string> = new Map(
  COMPOUNDS.flatMap(([css, list]) =>
    list.split('|').flatMap((p) => {
      // A one-word compound takes German and Dutch endings too: "marineblauem", "himmelblaue", "marineblauwe".
      const forms = p.includes(' ') ? [p] : [p, ...['e', 'em', 'en', 'er', 'es'].map((end) => p + end)];
      return forms.map((f) => [f, css] as [string, string]);
    }),
  ),
);

/** The CSS name a modifier makes of a base, or undefined when CSS has none (the colour is then unread). */
function shaded(shade: string, base: string): string | undefined {
  return CSS_NAMED_COLOURS.get(`${shade}${base}`) ?? (base === 'gray' ? CSS_NAMED_COLOURS.get(`${shade}grey`) : undefined);
}

function modifierOf(word: string): string | undefined {
  return DARK_WORDS.has(word) ? 'dark' : LIGHT_WORDS.has(word) ? 'light' : SHADE_WORDS.get(word);
}

/** One word that is a modifier joined to a base ("dunkelblau", "lichtgrijze"): [modifier, base]. */
function joined(word: string): [string, string] | undefined {
  for (const [prefixes, shade] of [[DARK_PREFIXES, 'dark'], [LIGHT_PREFIXES, 'light']] as const) {
    for (const p of prefixes) {
      if (word.length > p.length && word.startsWith(p)) {
        const base = BASE_OF.get(word.slice(p.length));
        if (base) return [shade, base];
      }
    }
  }
  return undefined;
}

export interface ColourWord {
  start: number;
  end: number;
  /** #rrggbb, or undefined when the words name a shade CSS has no name for. */
  value: string | undefined;
  /** The words as written (folded), for the buyer to be told which were not read. */
  words: string;
}

interface Word {
  w: string;
  start: number;
  end: number;
}

const joinedBySpaceOrHyphen = (text: string, a: Word, b: Word) => /^[ -]$/.test(text.slice(a.end, b.start));

/**
 * Colour names in folded Latin-script text, in order: CSS names ("light
 * grey", "rebeccapurple"), compounds, base words with their modifiers. The
 * longest reading at each place wins.
 */
export function latinColourWords(text: string, words: readonly Word[]): ColourWord[] {
  const out: ColourWord[] = [];
  const hex = (css: string) => CSS_NAMED_COLOURS.get(css);
  for (let i = 0; i < words.length; i++) {
    if (text[words[i]!.start - 1] === '#') continue;
    let best: { n: number; value: string | undefined } | undefined;
    // Compounds and CSS names of up to three words, longest first.
    for (let n = Math.min(3, words.length - i); n >= 1 && !best; n--) {
      const run = words.slice(i, i + n);
      if (run.some((x, k) => k > 0 && !joinedBySpaceOrHyphen(text, run[k - 1]!, x))) continue;
      const compound = COMPOUND_OF.get(run.map((x) => x.w).join(' '));
      const css = hex(run.map((x) => x.w).join(''));
      if (compound) best = { n, value: hex(compound) };
      else if (css) best = { n, value: css };
    }
    const w = words[i]!.w;
    const next = words[i + 1];
    const adjacent = next !== undefined && joinedBySpaceOrHyphen(text, words[i]!, next);
    const mod = modifierOf(w);
    // A modifier before a base ("dark blue", "dunkles Blau", "pale green").
    if ((!best || best.n === 1) && mod && adjacent && BASE_OF.has(next.w)) {
      best = { n: 2, value: shaded(mod, BASE_OF.get(next.w)!) };
    } else if (!best) {
      const base = BASE_OF.get(w);
      const join = joined(w);
      const after = adjacent ? modifierOf(next.w) : undefined;
      // A base with its modifier after it ("azul oscuro", "bleu foncé", "grigio chiaro").
      if (base && after) best = { n: 2, value: shaded(after, base) };
      else if (base) best = { n: 1, value: hex(base) };
      else if (join) best = { n: 1, value: shaded(join[0], join[1]) };
    }
    if (!best) continue;
    const last = words[i + best.n - 1]!;
    out.push({ start: words[i]!.start, end: last.end, value: best.value, words: text.slice(words[i]!.start, last.end) });
    i += best.n - 1;
  }
  return out;
}

// ─── Chinese, Japanese, Korean ──────────────────────────────────────────────

/** Base colour forms per CSS name (Chinese, Japanese, Korean). */
const CJK_BASES: ReadonlyArray<readonly [string, string]> = [
  ['white', '白色 白い 白の 白地 白 ホワイト 흰색 하얀색 하양 흰'],
  ['black', '黑色 黒色 黒い 黒の 黒地 黒 黑 ブラック 검은색 검정색 검정'],
  ['gray', '灰色 灰 グレー グレイ 회색'],
  ['red', '红色 紅色 红 紅 赤色 赤い 赤の 赤 レッド 빨간색 빨강 적색'],
  ['blue', '蓝色 藍色 蓝 藍 青色 青い 青の 青 ブルー 파란색 파랑 청색'],
  ['green', '绿色 綠色 绿 緑色 緑の 緑 グリーン 초록색 녹색 초록'],
  ['yellow', '黄色 黃色 黄色い 黄 イエロー 노란색 노랑'],
  ['orange', '橙色 オレンジ色 オレンジ 주황색'],
  ['purple', '紫色 紫 パープル 보라색 보라'],
  ['pink', '粉色 粉红色 ピンク 분홍색 핑크'],
  ['brown', '棕色 褐色 茶色 ブラウン 갈색'],
  ['silver', '银色 銀色 은색'],
  ['gold', '金色 금색'],
];
const CJK_COMPOUNDS: ReadonlyArray<readonly [string, string]> = [
  ['navy', '藏青色 藏青 藏蓝色 藏蓝 海军蓝 紺色 濃紺 紺の 紺 ネイビー 남색 네이비'],
  ['skyblue', '天蓝色 天蓝 天藍色 空色 스카이블루 하늘색'],
  ['lightblue', '水色'],
];
/** Modifiers written before the colour, with or without a space. */
const CJK_MODIFIERS: ReadonlyArray<readonly [string, string]> = [
  ['dark', '深 暗 濃い 暗い ダーク 진한 짙은 어두운'],
  ['light', '浅 淺 淡 薄い 明るい ライト 연한 옅은 밝은'],
];

const CJK_PHRASES: ReadonlyMap<string, string | null> = (() => {
  const m = new Map<string, string | null>();
  for (const [css, forms] of CJK_COMPOUNDS) for (const f of forms.split(' ')) m.set(f, CSS_NAMED_COLOURS.get(css)!);
  for (const [css, forms] of CJK_BASES) {
    for (const f of forms.split(' ')) {
      // A lone character (灰, 青, 흰) is too common in other words to stand alone: only with a modifier.
      if ([...f].length > 1) m.set(f, CSS_NAMED_COLOURS.get(css)!);
      for (const [shade, mods] of CJK_MODIFIERS) {
        const value = shaded(shade, css) ?? null;
        for (const mod of mods.split(' ')) for (const sep of ['', ' ']) m.set(`${mod}${sep}${f}`, value);
      }
    }
  }
  return m;
})();
const CJK_PHRASE_RE = new RegExp([...CJK_PHRASES.keys()].sort((a, b) => b.length - a.length).join('|'), 'g');

/** A whole value that is one CJK colour name, single characters included ("白", "紺"), as #rrggbb. */
export function cjkColourValue(value: string): string | undefined {
  const whole = CJK_PHRASES.get(value) ?? undefined;
  if (whole) return whole;
  for (const [css, forms] of [...CJK_BASES, ...CJK_COMPOUNDS]) if (forms.split(' ').includes(value)) return CSS_NAMED_COLOURS.get(css);
  return undefined;
}

/** Colour names in Chinese, Japanese and Korean text (folded), in order; the longest phrase wins. */
export function cjkColourWords(text: string): ColourWord[] {
  const out: ColourWord[] = [];
  for (const m of text.matchAll(CJK_PHRASE_RE)) {
    const value = CJK_PHRASES.get(m[0]);
    out.push({ start: m.index!, end: m.index! + m[0].length, value: value ?? undefined, words: m[0] });
  }
  return out;
}
