/**
 * What an onlooker rebuilds from a settled payment: once the facilitator sends
 * transferWithAuthorization, the buyer's authorization and signature are
 * calldata of a public transaction, so the exact PAYMENT-SIGNATURE (without
 * its extensions, which never go on chain) can be made from the chain alone.
 */
import { decodeFunctionData, parseAbi, type Hex } from 'viem';
import type { Devnet } from '../../devnet/index.js';
import { anvilRpc, type PaymentPayload } from './harness.js';

const EIP3009 = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
]);

/** The payment as the buyer signed it, read from the settlement transaction `tx`, for the requirement it accepted. */
export async function paymentFromChain(devnet: Pick<Devnet, 'rpcUrl'>, tx: string, accepted: PaymentPayload['accepted']): Promise<PaymentPayload> {
  const t = (await anvilRpc(devnet, 'eth_getTransactionByHash', [tx])) as { input: Hex };
  const { args } = decodeFunctionData({ abi: EIP3009, data: t.input });
  const [from, to, value, validAfter, validBefore, nonce] = args as unknown as [Hex, Hex, bigint, bigint, bigint, Hex];
  const signature =
    args.length === 9
      ? (`0x${(args[7] as Hex).slice(2)}${(args[8] as Hex).slice(2)}${Number(args[6]).toString(16).padStart(2, '0')}` as Hex)
      : (args[6] as Hex);
  return {
    x402Version: 2,
    accepted,
    payload: { signature, authorization: { from, to, value: value.toString(), validAfter: validAfter.toString(), validBefore: validBefore.toString(), nonce } },
  } as PaymentPayload;
}
