import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { newAjv } from '../../catalog/ajv.js';
import { calculateContrast, contrastRatio } from './contrast.js';
import { accessibilityContrastCalculator as cap } from './index.js';

const ajv = newAjv();
const validateIn = ajv.compile(cap.inputSchema);
const validateOut = ajv.compile(cap.outputSchema);

test('domain-rules §A vectors give the exact ratios', () => {
  assert.equal(contrastRatio('#000000', '#ffffff'), 21);
  assert.equal(contrastRatio('#777777', '#ffffff'), 4.478089453577214);
  assert.equal(contrastRatio('#767676', '#ffffff'), 4.542224959605253);
  assert.equal(contrastRatio('#595959', '#ffffff'), 7.004729208035935);
  assert.equal(contrastRatio('#ffffff', '#0078d7'), 4.498861479739532);
  assert.equal(contrastRatio('#123456', '#123456'), 1);
});

test('thresholds compare the unrounded ratio: 4.4988 fails AA although it displays as 4.5', () => {
  const r = calculateContrast({ foreground: '#ffffff', background: '#0078d7', large_text: false });
  assert.equal(r.wcag_aa, false);
  assert.equal(r.wcag_aaa, false);
  const large = calculateContrast({ foreground: '#ffffff', background: '#0078d7', large_text: true });
  assert.equal(large.wcag_aa, true);
  assert.equal(large.wcag_aaa, false, '4.4988 < 4.5 fails AAA for large text');
});

test('#777777 fails AA normal, passes AA large; #767676 passes AA; #595959 passes AAA', () => {
  assert.equal(calculateContrast({ foreground: '#777777', background: '#ffffff', large_text: false }).wcag_aa, false);
  assert.equal(calculateContrast({ foreground: '#777777', background: '#ffffff', large_text: true }).wcag_aa, true);
  assert.equal(calculateContrast({ foreground: '#767676', background: '#ffffff', large_text: false }).wcag_aa, true);
  assert.equal(calculateContrast({ foreground: '#595959', background: '#ffffff', large_text: false }).wcag_aaa, true);
  assert.equal(calculateContrast({ foreground: '#5a5a5a', background: '#ffffff', large_text: false }).wcag_aaa, false);
});

test('hex case does not matter', () => {
  assert.equal(contrastRatio('#ABCDEF', '#012345'), contrastRatio('#abcdef', '#012345'));
});

test('the schema rejects what the spec forbids', () => {
  assert.equal(validateIn({ foreground: '#000', background: '#ffffff', large_text: false }), false);
  assert.equal(validateIn({ foreground: '000000', background: '#ffffff', large_text: false }), false);
  assert.equal(validateIn({ foreground: '#000000', background: '#ffffff' }), false);
  assert.equal(validateIn({ foreground: '#000000', background: '#ffffff', large_text: 'no' }), false);
  assert.equal(validateIn({ foreground: '#000000', background: '#ffffff', large_text: false, alpha: 1 }), false);
  assert.equal(validateIn({ foreground: '#00000g', background: '#ffffff', large_text: false }), false);
});

test('examples are consistent with the handler and both schemas', () => {
  for (const ex of cap.examples) {
    assert.ok(validateIn(ex.input));
    assert.deepEqual(cap.run(ex.input), ex.output);
    assert.ok(validateOut(ex.output), JSON.stringify(validateOut.errors));
  }
});

const hex = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
  .map(([r, g, b]) => '#' + [r, g, b].map((v) => v.toString(16).padStart(2, '0')).join(''));

test('property: symmetric, within [1, 21], output valid, AAA implies AA', () => {
  fc.assert(
    fc.property(hex, hex, fc.boolean(), (a, b, large) => {
      const x = calculateContrast({ foreground: a, background: b, large_text: large });
      const y = calculateContrast({ foreground: b, background: a, large_text: large });
      assert.equal(x.contrast_ratio, y.contrast_ratio);
      assert.ok(x.contrast_ratio >= 1 && x.contrast_ratio <= 21);
      assert.ok(!x.wcag_aaa || x.wcag_aa);
      assert.ok(validateOut(x));
    }),
    { numRuns: 2000 },
  );
});

test('property: a large-text verdict is never stricter than the normal-text one', () => {
  fc.assert(
    fc.property(hex, hex, (a, b) => {
      const n = calculateContrast({ foreground: a, background: b, large_text: false });
      const l = calculateContrast({ foreground: a, background: b, large_text: true });
      assert.ok(!n.wcag_aa || l.wcag_aa);
      assert.ok(!n.wcag_aaa || l.wcag_aaa);
    }),
  );
});
