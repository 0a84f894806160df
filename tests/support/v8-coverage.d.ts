// @bcoe/v8-coverage ships no types; this is the part of its API tests/support/agent-coverage.ts uses.
declare module "@bcoe/v8-coverage" {
  export type RangeCov = { startOffset: number; endOffset: number; count: number };
  export type FunctionCov = { functionName: string; ranges: RangeCov[]; isBlockCoverage: boolean };
  export type ScriptCov = { scriptId: string; url: string; functions: FunctionCov[] };
  export type ProcessCov = { result: ScriptCov[] };
  /** Sums the counts of several processes' coverage, script by script (same url). */
  export function mergeProcessCovs(processCovs: readonly ProcessCov[]): ProcessCov;
}
