// ESLint for the whole repository: `npm run lint`, and a stage of `npm test`, both with
// --max-warnings=0 so a warning is as good as an error (a warning nobody must fix is noise).
// typescript-eslint's `recommended` set, not the type-checked one: lint has to stay fast on a
// small CI machine. The React hooks rules run on the console (renderer/) only.
import comments from '@eslint-community/eslint-plugin-eslint-comments';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The renderer's folders, bottom first: a file imports its own folder and the ones before it
// (test/repo/layering.test.ts is the full check: it resolves every import and finds folder cycles;
// this gives the same answer in the editor). Keep the two lists alike.
const rendererLayers = ['lib', 'transport', 'stores', 'sync', 'editor', 'components', 'views', 'app'];
const rendererLayering = rendererLayers.slice(0, -1).map((layer, i) => ({
  files: [`renderer/src/${layer}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': ['error', {
      patterns: [{
        regex: `^(?:\\.\\./)+(?:${rendererLayers.slice(i + 1).join('|')})/`,
        message: `renderer/src/${layer}/ sits below ${rendererLayers.slice(i + 1).join(', ')} (see the renderer layers in docs/architecture.md): move what both need down.`,
      }],
    }],
    // Views and components reach the host through their domain's sync/<domain>-actions.ts.
    ...(layer === 'views' || layer === 'components'
      ? {
          'no-restricted-syntax': ['error', {
            selector: "MemberExpression[property.name='call'][object.name='client'], MemberExpression[property.name='call'][object.property.name='client']",
            message: "Call the host through the domain's sync/<domain>-actions.ts (add the action there, e.g. with hostAction()), not client.call here.",
          }],
        }
      : {}),
  },
}));

export default defineConfig([
  globalIgnores([
    'out/',
    'dist/',
    'native/',
    '.tmp*/',
    'test-results/',
    'playwright-report/',
    // Generated from shared/schemas/ by scripts/gen-manifest-types.mjs; fix the schema instead.
    '**/*.types.ts',
    // Scanner samples: deliberately hostile or odd code that the plugin scanner must judge.
    'test/fixtures/scan/',
    // The seed systems' plugins exactly as their docs print them (untyped Triggerfish modules).
    'test/fixtures/seeds/',
    // AssemblyScript, not TypeScript: its i32/u8 types and @external decorators are not TS.
    'examples/wasm-plugins/*/assembly/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: {
      // An `eslint-disable` that no longer suppresses anything hides the next real problem.
      reportUnusedDisableDirectives: 'error',
    },
    plugins: { '@eslint-community/eslint-comments': comments },
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      // A leading underscore marks a binding kept on purpose (a parameter a signature needs, a
      // field taken out of an object with `...rest`): the house convention, so it is not noise.
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_',
        varsIgnorePattern: '^_',
        caughtErrorsIgnorePattern: '^_',
        destructuredArrayIgnorePattern: '^_',
        ignoreRestSiblings: true,
      }],
      // A `let` that closures read before its one assignment (a cleanup that may run early) cannot
      // become a `const`: the closure would hit the temporal dead zone.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A rule switched off for a line says why after `--`, and for named rules only: the
      // next reader must be able to tell a considered exception from a silenced warning.
      '@eslint-community/eslint-comments/require-description': 'error',
      '@eslint-community/eslint-comments/no-unlimited-disable': 'error',
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.flat.recommended.rules,
      // The plugin's recommended set also carries React Compiler rules. The console is not built
      // with the compiler, and these four judge what the compiler can optimise, not correctness:
      // a dialog that mounts its body after showModal(), or a tick that resets its clock, sets
      // state in an effect on purpose; ages are read from Date.now() at render because the views
      // re-render on host events and a one-second tick (views never poll); TanStack Virtual is
      // "incompatible" only with the compiler's memoisation. The rules that catch real bugs
      // without the compiler stay on: rules-of-hooks, exhaustive-deps, refs, globals, immutability.
      'react-hooks/set-state-in-effect': 'off',
      'react-hooks/purity': 'off',
      'react-hooks/incompatible-library': 'off',
      'react-hooks/preserve-manual-memoization': 'off',
    },
  },
  {
    // A promise nobody awaits or catches in the host is a rejection that kills the process or an
    // error that never reaches the audit log. These two rules need type information, which costs
    // a type-check of main/ (see docs/contributing.md for the measured time), so they run there only.
    files: ['main/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The composition root builds each part after what it uses (docs/architecture.md, "main/host/"):
    // a closure that reads a binding declared further down works only while nothing calls it early,
    // and hides the order services really depend on. Function declarations and types are hoisted
    // safely, so only variables and classes count. main/host/ only for now: elsewhere 97 existing
    // uses (mostly module constants read by functions above them) are harmless and not yet folded.
    files: ['main/host/**/*.ts'],
    rules: { '@typescript-eslint/no-use-before-define': ['error', { functions: false, classes: true, variables: true, typedefs: false }] },
  },
  {
    // Playwright reads a fixture's first parameter as a destructuring pattern to learn what it
    // depends on; a fixture that depends on nothing must still write `{}`.
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': ['error', { allowObjectPatternsAsParameters: true }] },
  },
  ...rendererLayering,
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
]);
