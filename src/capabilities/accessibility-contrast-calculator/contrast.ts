/**
 * WCAG 2.x contrast ratio for one sRGB colour pair.
 *
 * Luminance follows the WCAG definition exactly (sRGB transfer function with
 * the 0.04045 knee and the Rec. 709 coefficients). No colour library is used:
 * libraries that go through an XYZ matrix differ by ~1e-5 and flip verdicts
 * at the thresholds. Thresholds compare the *unrounded* ratio with `>=`
 * (W3C Understanding 1.4.3: 4.499:1 does not meet 4.5:1).
 */
export interface ContrastRequest {
  foreground: string;
  background: string;
  large_text: boolean;
}

export interface ContrastResponse {
  contrast_ratio: number;
  wcag_aa: boolean;
  wcag_aaa: boolean;
  large_text: boolean;
  limitations: string[];
}

const THRESHOLDS = {
  normal: { aa: 4.5, aaa: 7 },
  large: { aa: 3, aaa: 4.5 },
} as const;

function channel(hex: string, offset: number): number {
  const c = parseInt(hex.slice(offset, offset + 2), 16) / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

/** Relative luminance of a `#RRGGBB` colour, 0 (black) to 1 (white). */
function relativeLuminance(hex: string): number {
  return 0.2126 * channel(hex, 1) + 0.7152 * channel(hex, 3) + 0.0722 * channel(hex, 5);
}

/** The exact contrast ratio, 1 to 21; the order of the colours does not matter. */
export function contrastRatio(a: string, b: string): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  const [hi, lo] = la >= lb ? [la, lb] : [lb, la];
  return (hi + 0.05) / (lo + 0.05);
}

const CONTRAST_LIMITATIONS: readonly string[] = [
  'Computes the WCAG 2.x sRGB contrast ratio of exactly one foreground/background pair; it makes no claim about the accessibility of a whole interface.',
  'Both colours are treated as opaque #RRGGBB sRGB values; transparency, gradients, images behind text, anti-aliasing and font rendering are not considered.',
  'Whether text is large (at least 18pt, or 14pt bold) is taken from large_text as stated by the caller.',
  'contrast_ratio is the unrounded ratio; verdicts compare it with the thresholds (AA 4.5, AAA 7; large text AA 3, AAA 4.5) without rounding.',
  'WCAG 2.x contrast only; APCA / WCAG 3 perceptual contrast is not computed.',
];

export function calculateContrast(input: ContrastRequest): ContrastResponse {
  const ratio = contrastRatio(input.foreground, input.background);
  const t = input.large_text ? THRESHOLDS.large : THRESHOLDS.normal;
  return {
    contrast_ratio: ratio,
    wcag_aa: ratio >= t.aa,
    wcag_aaa: ratio >= t.aaa,
    large_text: input.large_text,
    limitations: [...CONTRAST_LIMITATIONS],
  };
}
