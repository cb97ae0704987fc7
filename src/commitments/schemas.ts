/**
 * JSON Schemas (draft 2020-12, no `$ref`) of what this service signs, for the
 * quote response schema and OpenAPI: one description of the wire shapes in
 * formats.ts.
 */
const hex32 = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };
const signature = { type: 'string', pattern: '^0x[0-9a-fA-F]{130}$', description: '65-byte ECDSA signature (r, s, v), hex.' };
const str = { type: 'string' };
const uint = { type: 'integer', minimum: 0 };

function signed(payload: Record<string, unknown>, required: string[], description: string) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['format', 'payload', 'signature'],
    description,
    properties: { format: { const: 'eip712' }, payload: { type: 'object', additionalProperties: false, required, properties: payload }, signature },
  };
}

const offerPayload = { version: { const: 1 }, resourceUrl: str, scheme: str, network: str, asset: str, payTo: str, amount: str, validUntil: uint };
const receiptPayload = { version: { const: 1 }, network: str, resourceUrl: str, payer: str, issuedAt: uint, transaction: str };

export const signedQuoteOfferSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['offer', 'binding'],
  description:
    'Signed by the service\'s published signer (/.well-known/x402 `signing.signer`). `offer`: the x402 offer-receipt extension\'s EIP-712 offer (domain "x402 offer", version "1", chainId 1). `binding`: EIP-712 BoundOffer (domain "x402 offer body binding") over the offer\'s fields plus `bodySha256`, the SHA-256 of the RFC 8785 canonical JSON of native_body (of the body its native_body_by_reference builds when native_body is null: that object\'s sha256). Send this object base64-encoded in the X-Signed-Offer header with that body before validUntil and its amount is the price.',
  properties: {
    offer: signed(offerPayload, Object.keys(offerPayload), 'The x402 offer-receipt offer.'),
    binding: signed({ bodySha256: hex32 }, ['bodySha256'], 'Our binding of the offer to the quoted body.'),
  },
};

export const receiptExtensionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['info'],
  description:
    'PAYMENT-RESPONSE extensions["offer-receipt"]: `info.receipt` is the x402 offer-receipt extension\'s EIP-712 receipt (domain "x402 receipt", with the transaction); `info.binding` is an EIP-712 BoundReceipt (domain "x402 receipt content binding", version "1", chainId 1) signed by the same key over the receipt\'s fields plus amount, requestFingerprint (SHA-256 of "<resource id>\\n" + RFC 8785 canonical JSON of the validated request) and responseSha256 (SHA-256 of the exact response body bytes). issuedAt is when the payment was bound to the request, so redelivery carries the same receipt.',
  properties: {
    info: {
      type: 'object',
      additionalProperties: false,
      required: ['receipt', 'binding'],
      properties: {
        receipt: signed(receiptPayload, Object.keys(receiptPayload), 'The x402 offer-receipt receipt.'),
        binding: signed({ amount: str, requestFingerprint: hex32, responseSha256: hex32 }, ['amount', 'requestFingerprint', 'responseSha256'], 'Our content binding.'),
      },
    },
  },
};

export const stepCommitmentSchema = signed(
  { executionId: str, step: uint, capabilityId: str, route: str, inputSha256: hex32, outputSha256: hex32 },
  ['executionId', 'step', 'capabilityId', 'route', 'inputSha256', 'outputSha256'],
  'EIP-712 Step (domain "x402 composite step") signed by the service\'s signer: the step\'s capability and native route, the SHA-256 of the canonical JSON of its validated input and of its output (the provenance entry\'s input_sha256 and output_sha256). The outer PAYMENT-RESPONSE receipt binds the whole body, these included, to the payment.',
);
