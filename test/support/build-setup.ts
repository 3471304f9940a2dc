import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The process tests run the built artifacts, so build them once per run. */
export default function setup() {
  execFileSync(process.execPath, [path.resolve('esbuild.config.mjs')], { stdio: 'inherit' });
}
