import { runPaidCpuBench, paidCpuReport } from './paid-cpu.js';
console.log(paidCpuReport(await runPaidCpuBench({ progress: (m) => console.error(m) })).join('\n'));
process.exit(0);
