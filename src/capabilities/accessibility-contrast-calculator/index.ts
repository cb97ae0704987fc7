import type { Capability } from '../../catalog/capability.js';
import { calculateContrast, type ContrastRequest, type ContrastResponse } from './contrast.js';
import { contrastRouting } from './routing.js';

const colour = { type: 'string', pattern: '^#[0-9a-fA-F]{6}$', description: 'An opaque sRGB colour as #RRGGBB.' };

export const accessibilityContrastCalculator: Capability<ContrastRequest, ContrastResponse> = {
  id: 'accessibility-contrast-calculator',
  method: 'POST',
  path: '/x402/v1/accessibility-contrast-calculator',
  priceAtomic: '1000',
  title: 'WCAG 2.x contrast calculator',
  summary: 'The exact WCAG 2.x contrast ratio of a foreground and background colour, and whether the pair passes AA and AAA for normal or large text.',
  description:
    'Computes the exact WCAG 2.x sRGB contrast ratio of one foreground/background colour pair and whether it meets AA and AAA for normal or large text. Deterministic; no rounding before the threshold comparison.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['foreground', 'background', 'large_text'],
    properties: {
      foreground: colour,
      background: colour,
      large_text: { type: 'boolean', description: 'True for text of at least 18pt, or 14pt bold.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['contrast_ratio', 'wcag_aa', 'wcag_aaa', 'large_text', 'limitations'],
    properties: {
      contrast_ratio: { type: 'number', minimum: 1, maximum: 21, description: 'The unrounded ratio (L1 + 0.05) / (L2 + 0.05).' },
      wcag_aa: { type: 'boolean' },
      wcag_aaa: { type: 'boolean' },
      large_text: { type: 'boolean' },
      limitations: { type: 'array', items: { type: 'string' } },
    },
  },
  examples: [
    {
      summary: 'Black on white',
      input: { foreground: '#000000', background: '#ffffff', large_text: false },
      output: calculateContrast({ foreground: '#000000', background: '#ffffff', large_text: false }),
    },
    {
      summary: '#777777 on white: fails AA for normal text (4.478), passes for large text',
      input: { foreground: '#777777', background: '#ffffff', large_text: true },
      output: calculateContrast({ foreground: '#777777', background: '#ffffff', large_text: true }),
    },
  ],
  routing: contrastRouting,
  run: calculateContrast,
  maxBodyBytes: 4096,
};
