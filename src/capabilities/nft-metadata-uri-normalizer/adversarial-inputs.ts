/**
 * Long hostile URIs for the normalizer: what its tests check it answers
 * validly, and what `npm run bench` times (a quadratic scan would show
 * there, not as a flaky test). Not used at run time.
 */
const N = 65536;

export function adversarialUris(): string[] {
  return [
    'x' + ' '.repeat(N - 2) + 'y',
    'x' + '\u0000'.repeat(N - 2) + 'y',
    'ipfs://' + 'ipfs/'.repeat(13000) + 'Qm',
    'https://' + 'a.'.repeat(N / 2),
    'Q'.repeat(N),
    'ipfs://z' + '2'.repeat(N - 8),
    'data:application/json,' + '%'.repeat(N - 30),
    'data:' + ';a'.repeat(N / 2 - 5) + ',x',
    'https://x/' + '{id}'.repeat(16000),
  ];
}
