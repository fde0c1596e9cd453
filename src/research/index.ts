/** Parameter search, the TPE optimizer, objectives and walk-forward analysis. */
export { searchSpace, spaceSize, enumerate, comboKey } from './space.js';
export type { Dimension, SearchSpace } from './space.js';
export { TpeSampler, normalCdf } from './tpe.js';
export type { TpeOptions, Observation } from './tpe.js';
export { SeededRandom } from './random.js';
export { OBJECTIVES, OBJECTIVE_NAMES, objectiveOf, objectiveValue, lossOf, parseConstraint, violation } from './objectives.js';
export type { ObjectiveName, Constraint } from './objectives.js';
export { runSearch, rank, SEARCH_METHODS, MAX_GRID } from './search.js';
export type { JobRunner, SearchMethod, SearchOptions, SearchResult } from './search.js';
// what a JobRunner's backtest() is given: walk-forward's stitched out-of-sample run, as plain data
export type { BacktestJob } from '../runtime/backtest-job.js';
export { runWalkForward, planWalkForward, planWindows, sliceFigures, parseDuration, formatDuration } from './walkforward.js';
export type { WalkForwardOptions, WalkForwardPlan, WalkForwardResult, WindowPlan, WindowResult, SliceFigures } from './walkforward.js';
export { buildWalkForwardJson, renderWalkForwardHtml, WALKFORWARD_FORMAT } from './walkforward-report.js';
export type { WalkForwardJson } from './walkforward-report.js';
export { renderSweepHtml } from './sweep-report.js';
export type { SweepPage, SweepHtmlOptions } from './sweep-report.js';
export { dataRange } from './data-range.js';
export type { DataRange } from './data-range.js';
