import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_ORG_ENUMERATIONS, SCHEMA_ORG_SUBCLASSES, SCHEMA_ORG_VERSION } from './schemaorg-types.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'gen-schemaorg-types.mjs');

/** A miniature of schema.org's published file: same shape (compact IRIs, @graph, arrays of superclasses). */
const FIXTURE = {
  '@context': { rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#', rdfs: 'http://www.w3.org/2000/01/rdf-schema#', schema: 'https://schema.org/' },
  '@graph': [
    { '@id': 'schema:Thing', '@type': 'rdfs:Class' },
    { '@id': 'schema:Product', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:Thing' } },
    { '@id': 'schema:Substance', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:Thing' } },
    { '@id': 'schema:Drug', '@type': 'rdfs:Class', 'rdfs:subClassOf': [{ '@id': 'schema:Substance' }, { '@id': 'schema:Product' }] },
    { '@id': 'schema:Vehicle', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:Product' } },
    { '@id': 'schema:Car', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:Vehicle' } },
    { '@id': 'schema:Offer', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:Thing' } },
    { '@id': 'schema:AggregateOffer', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:Offer' } },
    { '@id': 'schema:PriceSpecification', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:Thing' } },
    { '@id': 'schema:CompoundPriceSpecification', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:PriceSpecification' } },
    { '@id': 'schema:PriceComponentTypeEnumeration', '@type': 'rdfs:Class', 'rdfs:subClassOf': { '@id': 'schema:Thing' } },
    { '@id': 'schema:DistanceFee', '@type': 'schema:PriceComponentTypeEnumeration' },
    { '@id': 'schema:Installment', '@type': 'schema:PriceComponentTypeEnumeration' },
    { '@id': 'schema:model', '@type': 'rdf:Property', 'schema:domainIncludes': { '@id': 'schema:Product' } },
    { '@id': 'unece:RelatedProduct', 'rdfs:subClassOf': { '@id': 'schema:Product' } },
  ],
};

function generate(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('scripts/gen-schemaorg-types.mjs', () => {
  it('writes the transitive subclasses and enumeration members of a schema.org vocabulary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdo-'));
    try {
      const src = join(dir, 'releases', '9.9', 'schemaorg-current-https.jsonld');
      mkdirSync(dirname(src), { recursive: true });
      writeFileSync(src, JSON.stringify(FIXTURE));
      const out = join(dir, 'table.ts');
      const r = generate([src, '--out', out]);
      assert.equal(r.status, 0, r.stderr);
      const text = readFileSync(out, 'utf8');
      assert.match(text, /SCHEMA_ORG_VERSION = '9\.9'/);
      assert.match(text, /Product: \['Car', 'Drug', 'Product', 'Vehicle'\]/);
      assert.match(text, /Offer: \['AggregateOffer', 'Offer'\]/);
      assert.match(text, /PriceSpecification: \['CompoundPriceSpecification', 'PriceSpecification'\]/);
      assert.match(text, /PriceComponentTypeEnumeration: \['DistanceFee', 'Installment'\]/);
      // no version in the path and none given: refused rather than guessed
      const flat = join(dir, 'schemaorg-current-https.jsonld');
      writeFileSync(flat, JSON.stringify(FIXTURE));
      assert.equal(generate([flat, '--out', out]).status, 2);
      assert.equal(generate([flat, '--version', '1.0', '--out', out]).status, 0);
      // a file without Product is not a schema.org vocabulary
      writeFileSync(flat, JSON.stringify({ '@graph': [] }));
      assert.equal(generate([flat, '--version', '1.0', '--out', out]).status, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the committed table is schema.org 30.0 with Product, Offer and PriceSpecification subtrees', () => {
    assert.equal(SCHEMA_ORG_VERSION, '30.0');
    for (const t of ['Product', 'ProductGroup', 'IndividualProduct', 'ProductCollection', 'ProductModel', 'SomeProducts', 'Vehicle', 'Car', 'Motorcycle', 'BusOrCoach', 'MotorizedBicycle', 'DietarySupplement', 'Drug']) {
      assert.ok((SCHEMA_ORG_SUBCLASSES.Product as readonly string[]).includes(t), t);
    }
    assert.deepEqual([...SCHEMA_ORG_SUBCLASSES.Offer], ['AggregateOffer', 'Offer', 'OfferForLease', 'OfferForPurchase']);
    assert.ok((SCHEMA_ORG_SUBCLASSES.PriceSpecification as readonly string[]).includes('CompoundPriceSpecification'));
    assert.ok((SCHEMA_ORG_ENUMERATIONS.PriceComponentTypeEnumeration as readonly string[]).includes('DistanceFee'));
  });
});
