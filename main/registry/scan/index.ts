// Security scanner for plugins: findings with file, line, column, rule id, weight 1–3 and one
// sentence. See rules.ts for the rule catalogue and the per-language files for what each checks.

export { scanFile, languagesOf, type FileLanguage } from './scan-file.js';
export { scanManifestText } from './tool-poisoning.js';
export { scanPlugin, scanPluginFiles, summarise, MAX_SCAN_BYTES, type PluginFile } from './scan-plugin.js';
export { RULES, type RuleId, type RuleInfo } from './rules.js';
