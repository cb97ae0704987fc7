// ajv is CommonJS; under NodeNext its default export is the module object, whose
// `.default` is the class (both at run time and for the type checker).
import ajv2020 from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

const Ajv2020 = ajv2020.default;
type Ajv2020 = InstanceType<typeof ajv2020.default>;
const addFormats = formats.default;

/** A draft 2020-12 validator factory with formats, as every schema here is written. */
export function newAjv(opts: { useDefaults?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, useDefaults: opts.useDefaults ?? false });
  addFormats(ajv);
  return ajv;
}
