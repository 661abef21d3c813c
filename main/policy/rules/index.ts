// The rules part of the policy engine, for the pipeline and the UI.
export { buildRuleSet, evaluatePolicy, evaluatePolicyAsync, needsResolution, type EvaluateContext, type AsyncEvaluateContext, type PolicyResult, type RuleSet } from './engine.js';
export { compileRule, matchRule, type CompiledRule, type RuleMatch, type UnresolvedPolicy } from './compile.js';
export { builtinRules, compileBuiltinRules, BUILTIN_PREFIX, type BuiltinContext } from './builtin.js';
export { loadPolicyFile, parsePolicyText, RULE_FIELDS, type LoadContext, type LoadResult, type PolicyProblem, type ExampleResult } from './load.js';
export { parseExample, type ExtractFn } from './examples.js';
export { PolicyStore, type PolicyStoreOptions, type PolicyState } from './store.js';
export { toSnapshot, toSnapshots } from './snapshot.js';
export { defaultCaseInsensitive, type PathContext } from './paths.js';
