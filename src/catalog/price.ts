/** Atomic units as a decimal amount of the asset (6 decimals: 1000 → "0.001"), exactly, without floats. */
export function atomicToDecimal(atomic: string | bigint, decimals: number): string {
  const s = atomic.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}
