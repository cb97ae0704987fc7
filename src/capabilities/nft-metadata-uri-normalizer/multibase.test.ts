/**
 * Every multibase of the multiformats table decodes a CIDv1 to the same bytes,
 * and the normalizer writes it back as lowercase base32 ("b…").
 *
 * Vectors: the bytes of two real CIDs (the domain-rules §C CIDv1, dag-pb
 * sha2-256, 36 bytes; a Filecoin piece CID, 39 bytes, so odd-length tails are
 * covered) encoded in every base by an independent script that first
 * reproduced the multibase repository's own tests/basic.csv and
 * tests/leading_zero.csv.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ajv2020 from 'ajv/dist/2020.js';
import { nftMetadataUriNormalizer as cap } from './index.js';
import { MULTIBASE_NAMES, parseCid, parseIpnsKey, type Multibase } from './cid.js';
import type { NormalizerResponse } from './normalize.js';

const Ajv2020 = ajv2020.default;
const validateOut = new Ajv2020({ strict: false, allErrors: true }).compile(cap.outputSchema);

const V1 = 'bafybeiasb5vpmaounyilfuxbd3lryvosl4yefqrfahsb2esg46q6tu6y5q';
const V1_HEX = '01701220120f6af601d46e10b2d2e11ed71c55d25f3042c22501e41d1246e7a1e9d3d8ec';
const PIECE = 'baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq';
const PIECE_HEX = '0181e203922020077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e';
const IPNS_KEY = 'k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8';

const V1_IN: Readonly<Record<Multibase, string>> = {
  base2: "0000000010111000000010010001000000001001000001111011010101111011000000001110101000110111000010000101100101101001011100001000111101101011100011100010101011101001001011111001100000100001011000010001001010000000111100100000111010001001001000110111001111010000111101001110100111101100011101100",
  base8: "7002700221001101732573001650670205455134107553434253511371404130211200744072111067172075164754354",
  base10: "92793123816037418884516303436121513552309197858154375598311104374291980384321685149932",
  base16: "f01701220120f6af601d46e10b2d2e11ed71c55d25f3042c22501e41d1246e7a1e9d3d8ec",
  base16upper: "F01701220120F6AF601D46E10B2D2E11ED71C55D25F3042C22501E41D1246E7A1E9D3D8EC",
  base32hex: "v05o1480i1tlfc0ekdo8b5kn13rbholeibso45gh507i1q4i6sugujkuotg",
  base32hexupper: "V05O1480I1TLFC0EKDO8B5KN13RBHOLEIBSO45GH507I1Q4I6SUGUJKUOTG",
  base32hexpad: "t05o1480i1tlfc0ekdo8b5kn13rbholeibso45gh507i1q4i6sugujkuotg======",
  base32hexpadupper: "T05O1480I1TLFC0EKDO8B5KN13RBHOLEIBSO45GH507I1Q4I6SUGUJKUOTG======",
  base32: "bafybeiasb5vpmaounyilfuxbd3lryvosl4yefqrfahsb2esg46q6tu6y5q",
  base32upper: "BAFYBEIASB5VPMAOUNYILFUXBD3LRYVOSL4YEFQRFAHSB2ESG46Q6TU6Y5Q",
  base32pad: "cafybeiasb5vpmaounyilfuxbd3lryvosl4yefqrfahsb2esg46q6tu6y5q======",
  base32padupper: "CAFYBEIASB5VPMAOUNYILFUXBD3LRYVOSL4YEFQRFAHSB2ESG46Q6TU6Y5Q======",
  base32z: "hyfabrey1b7ixcyqwpaemfwzbd5mtaiq1mharfotfy81b4r1gh6o6uw6a7o",
  base36: "k2jmtxrtbcm3s6t3wkhwkb1lhanr2n12vj52g66z6tptj5rkfi7c1bl8",
  base36upper: "K2JMTXRTBCM3S6T3WKHWKB1LHANR2N12VJ52G66Z6TPTJ5RKFI7C1BL8",
  base45: "R8805D2XC2MNDIA06-DDRMUKSX8RA%AN1CZJ8NU4W$S/D2WCT9PT2JR",
  base58btc: "zdj7WWeQ43G6JJvLWQWZpyHuAMq6uYWRjkBXFad11vE2LHhQ7",
  base58flickr: "ZCJ7vvDp43g6iiVkvpvyPYhUamQ6UxvqJKbwfzC11Ve2khGp7",
  base64: "mAXASIBIPavYB1G4QstLhHtccVdJfMELCJQHkHRJG56Hp09js",
  base64pad: "MAXASIBIPavYB1G4QstLhHtccVdJfMELCJQHkHRJG56Hp09js",
  base64url: "uAXASIBIPavYB1G4QstLhHtccVdJfMELCJQHkHRJG56Hp09js",
  base64urlpad: "UAXASIBIPavYB1G4QstLhHtccVdJfMELCJQHkHRJG56Hp09js",
  proquint: "pro-bajub-damob-damaz-koruk-balih-kumib-rarif-vahiv-tisis-jilif-jusub-haraf-fihad-vibit-danak-vivod-volig-togos",
  base256emoji: "🚀🪐⭐💻😅💻🌎😬🤮🪐📌😻🐉🤟🤠😯😘🧐💕👀🤠🥳🤗💚➡💔🪐🎤😭💻💓❄🌿💣🤧🐾📍",
};

const PIECE_IN: Readonly<Record<Multibase, string>> = {
  base2: "0000000011000000111100010000000111001001000100000001000000000011101111110010111111101111000110101110001010000101010010011000000111010010101010000000010011110001101001001100010100100111010111110110111111111001110011100010000101011011100010000101101110011000011011000111011000111101011000111101011111010011000111110",
  base8: "700300742007110401000357627757065612052230072252002361511424472766777163420533420556303307307530753723076",
  base10: "949128580168864490037996929592392535724716857889739328203479191281167711615834104140514960958",
  base16: "f0181e203922020077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e",
  base16upper: "F0181E203922020077E5FDE35C50A9303A55009E3498A4EBEDFF39C42B710B730D8EC7AC7AFA63E",
  base32hex: "v060u40si40g0evivroqsa2kj0eil02f39654tfmvuee45dogmsodhr3qounqcfg",
  base32hexupper: "V060U40SI40G0EVIVROQSA2KJ0EIL02F39654TFMVUEE45DOGMSODHR3QOUNQCFG",
  base32hexpad: "t060u40si40g0evivroqsa2kj0eil02f39654tfmvuee45dogmsodhr3qounqcfg=",
  base32hexpadupper: "T060U40SI40G0EVIVROQSA2KJ0EIL02F39654TFMVUEE45DOGMSODHR3QOUNQCFG=",
  base32: "baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq",
  base32upper: "BAGA6EA4SEAQAO7S73Y24KCUTAOSVACPDJGFE5PW76OOEFNYQW4YNR3D2Y6X2MPQ",
  base32pad: "caga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq=",
  base32padupper: "CAGA6EA4SEAQAO7S73Y24KCUTAOSVACPDJGFE5PW76OOEFNYQW4YNR3D2Y6X2MPQ=",
  base32z: "hygy6ryh1ryoyq9195a4hknwuyq1iynxdjgfr7xs96qqrfpaoshapt5d4a6z4cxo",
  base36: "kqnlpp0skvaumbc6dmtgmuvnq36g6039f27pysigntz2ho4uzmofsalj6hq6",
  base36upper: "KQNLPP0SKVAUMBC6DMTGMUVNQ36G6039F27PYSIGNTZ2HO4UZMOFSALJ6HQ6",
  base45: "RP80YPSDLI924-/F54S.+OFQIK+KBB1GD9/.91ES.XJJ6N67N2JRLNFB9MH1",
  base58btc: "zz5p6wDPnvGpwdyhsFkevWPerbWrs2rTtPzcTEoK8PzuJi7YQ68tV",
  base58flickr: "ZZ5P6WdoMVgPWCYGSfKDVvoDRAvRS2RsToZBseNj8oZUiH7xp68Tu",
  base64: "mAYHiA5IgIAd+X941xQqTA6VQCeNJik6+3/OcQrcQtzDY7HrHr6Y+",
  base64pad: "MAYHiA5IgIAd+X941xQqTA6VQCeNJik6+3/OcQrcQtzDY7HrHr6Y+",
  base64url: "uAYHiA5IgIAd-X941xQqTA6VQCeNJik6-3_OcQrcQtzDY7HrHr6Y-",
  base64urlpad: "UAYHiA5IgIAd-X941xQqTA6VQCeNJik6-3_OcQrcQtzDY7HrHr6Y-",
  proquint: "pro-bakad-vamag-namob-fabal-luniz-tumuj-sihap-nasag-pijib-bolog-hokap-hupuv-tuzug-nudaf-risib-risub-togos-loral-puvok-gum",
  base256emoji: "🚀🪐🌺💆🛰🌼😅😅🌓😠🥳🐷🌹💸🌖😫🛰🌞😒🌕👆😀💫👇😖☎📸🍻💚✈🐉✈🤗🐾📍💐😨💰🎈🌸",
};

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function run(uri: string): NormalizerResponse {
  const out = cap.run({ uri });
  assert.ok(validateOut(out), `output schema: ${JSON.stringify(validateOut.errors)} for ${uri}`);
  return out;
}

test('the vectors name every encoding of the multibase table, and nothing else', () => {
  assert.deepEqual(Object.keys(V1_IN).sort(), [...MULTIBASE_NAMES].sort());
  assert.deepEqual(Object.keys(PIECE_IN).sort(), [...MULTIBASE_NAMES].sort());
  assert.equal(MULTIBASE_NAMES.length, 25);
});

const REFERENCE = {
  V1: run(`ipfs://${V1}/meta.json`),
  PIECE: run(`ipfs://${PIECE}/meta.json`),
};

// One test per multibase, each on both CIDs.
for (const name of MULTIBASE_NAMES) {
  test(`${name}: decodes to the CID's bytes and normalizes to lowercase base32`, () => {
    for (const [which, vectors, canonical, bytesHex, codec] of [
      ['V1', V1_IN, V1, V1_HEX, 'dag-pb'],
      ['PIECE', PIECE_IN, PIECE, PIECE_HEX, null],
    ] as const) {
      const text = vectors[name];
      const r = parseCid(text);
      assert.ok(r.ok, `${which}: ${r.ok ? '' : r.reason}`);
      assert.equal(r.multibase, name, which);
      assert.equal(hex(r.bytes), bytesHex, which);
      assert.equal(r.cid, canonical, which);
      assert.equal(r.v1Base32, canonical, which);
      assert.equal(r.version, 1, which);
      assert.equal(r.codec, codec, which);
      // base45 and base64 can contain "/", which ends the CID in a URI; parseCid covers them above.
      if (/[/?#]/.test(text)) continue;
      for (const uri of [`ipfs://${text}/meta.json`, `https://ipfs.io/ipfs/${text}/meta.json`, `${text}/meta.json`]) {
        const u = run(uri);
        assert.equal(u.valid, true, `${which}: ${uri} ${JSON.stringify(u.warnings)}`);
        assert.equal(u.canonical_uri, `ipfs://${canonical}/meta.json`, `${which}: ${uri}`);
        assert.equal(u.gateway_url, REFERENCE[which].gateway_url, which);
        assert.equal(u.subdomain_gateway_url, REFERENCE[which].subdomain_gateway_url, which);
        assert.equal(u.ipfs?.cid, canonical, which);
        assert.equal(u.ipfs?.multibase, 'base32', which);
        assert.equal(u.ipfs?.input_multibase, name, which);
        const converted = u.warnings.some((w) => w.code === 'CID_MULTIBASE_CONVERTED');
        assert.equal(converted, name !== 'base32' && name !== 'base32upper', `${which}: CID_MULTIBASE_CONVERTED`);
      }
    }
  });
}

test('canonical output is a fixed point: normalizing it again changes nothing', () => {
  for (const name of MULTIBASE_NAMES) {
    const text = V1_IN[name];
    if (/[/?#]/.test(text)) continue;
    const first = run(`ipfs://${text}`);
    const second = run(first.canonical_uri!);
    assert.equal(second.canonical_uri, first.canonical_uri, name);
    assert.equal(second.ipfs?.input_multibase, 'base32', name);
  }
});

test('case-insensitive bases accept mixed case; case-sensitive ones do not', () => {
  const mixed = (s: string) => s[0] + [...s.slice(1)].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
  for (const name of ['base16', 'base32hex', 'base32hexpad', 'base32', 'base32pad', 'base36'] as const) {
    const r = parseCid(mixed(V1_IN[name]));
    assert.ok(r.ok && r.cid === V1 && r.lowercased, name);
  }
  for (const name of ['base58btc', 'base58flickr', 'base64', 'base64url', 'base32z', 'base45'] as const) {
    const s = V1_IN[name];
    const flipped = s[0] + s.slice(1).replace(/[a-z]/g, (c) => c.toUpperCase());
    if (flipped === s) continue;
    const r = parseCid(flipped);
    assert.ok(!r.ok || r.cid !== V1, name);
  }
});

test('padding must be exact; unpadded bases take no padding', () => {
  // 40-byte key: base64pad ends in "==".
  const pad = 'MAXIAJAgBEiDkaAsvjI0hCQ5qoyfxuzQquOfZI48eNYMaVNao9ckRJA==';
  const good = parseCid(pad);
  assert.ok(good.ok && good.multibase === 'base64pad');
  assert.equal(parseCid('U' + pad.slice(1)).ok, true, 'base64urlpad, same text (no + or / in it)');
  assert.equal(parseCid(pad.slice(0, -1)).ok, false, 'one "=" missing');
  assert.equal(parseCid(pad + '==').ok, false, 'extra "="');
  assert.equal(parseCid('m' + pad.slice(1)).ok, false, 'base64 is unpadded');
  assert.equal(parseCid(V1_IN.base32pad.slice(0, -1)).ok, false, 'base32pad needs all six "="');
  assert.equal(parseCid(V1_IN.base32pad.replace(/=+$/, '')).ok, false, 'base32pad without its padding');
  assert.equal(parseCid(V1_IN.base32 + '======').ok, false, 'base32 is unpadded');
  assert.equal(parseCid(PIECE_IN.base32hexpad + '=').ok, false);
});

test('malformed bodies and reserved prefixes are refused with a reason', () => {
  const refused = (text: string, why: RegExp) => {
    const r = parseCid(text);
    assert.ok(!r.ok, text);
    assert.match(r.reason, why, text);
  };
  refused(V1_IN.base2.slice(0, -1), /base2/);
  refused(V1_IN.base2.replace(/1/, '2'), /base2/);
  refused(V1_IN.base8 + '1', /base8/);
  refused(V1_IN.base10 + 'a', /base10/);
  refused('v' + V1_IN.base32hex.slice(1).replace('o', 'w'), /base32hex/); // w is past v
  refused(V1_IN.base32z.toUpperCase().replace(/^H/, 'h'), /base32z/);
  refused('R:::', /base45/); // 44 + 44·45 + 44·2025 > 65535
  refused('R' + V1_IN.base45.slice(1, -2), /base45/); // a lone trailing character
  refused('p' + V1_IN.proquint.slice(4), /proquint/); // no "ro-"
  refused(PIECE_IN.proquint.replace(/gum$/, 'gun'), /proquint/); // spare bits of the odd byte not zero
  refused(V1_IN.proquint.replace(/-togos$/, '-tog'), /./); // a 3-letter word that is not the last byte
  refused('\u{1F680}' + 'a', /base256emoji/);
  for (const prefix of ['1', '/', '\u0000', 'Q', 'x', '\u{1F681}']) refused(prefix + 'afybeiasb5vpmao', /not a multibase prefix/);
});

test('IPNS keys in the new bases are read too, and keep the base they were written in', () => {
  const base32Key = 'bafzaajaiaejcbzdibmxyzdjbbehgvizh6g5tikvy47mshdy6gwbruvgwvd24seje';
  const proquintKey =
    'pro-bajuf-baboh-bobad-damob-vidom-bosoz-mufat-fahan-bunop-pasol-zakur-gibop-rogol-tohog-musiv-gikag-donih-tipom-zilan-dahoh';
  for (const key of [IPNS_KEY, base32Key, proquintKey, 'MAXIAJAgBEiDkaAsvjI0hCQ5qoyfxuzQquOfZI48eNYMaVNao9ckRJA==']) {
    const k = parseIpnsKey(key);
    assert.ok(k.ok, key);
    assert.equal(k.base36, IPNS_KEY, key);
    assert.equal(k.name, key, key);
    const r = run(`ipns://${key}/x`);
    assert.equal(r.canonical_uri, `ipns://${key}/x`);
    assert.equal(r.subdomain_gateway_url, `https://${IPNS_KEY}.ipns.dweb.link/x`);
  }
});

test('subdomain gateways: a CID in a host-safe base other than base32 is read and re-encoded', () => {
  for (const name of ['base36', 'base32hex', 'base16'] as const) {
    const label = V1_IN[name];
    if (label.length > 63) continue; // base16 of 36 bytes is 73 characters: no DNS label
    const r = run(`https://${label}.ipfs.dweb.link/a.json`);
    assert.equal(r.canonical_uri, `ipfs://${V1}/a.json`, name);
    assert.ok(r.warnings.some((w) => w.code === 'SUBDOMAIN_CID_NOT_BASE32'), name);
  }
  // A case-sensitive base cannot survive a host name: kept as https with a remark.
  const z = run(`https://${V1_IN.base58btc}.ipfs.dweb.link/`);
  assert.equal(z.kind, 'https');
  assert.ok(z.warnings.some((w) => w.code === 'IPFS_SUBDOMAIN_INVALID_CID'));
});
