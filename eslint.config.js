// Lint configuration. Besides the recommended rules it enforces the layer boundaries of
// DESIGN: channel adapters never import agent or model code, and only
// src/llm/providers/<vendor>.ts imports a vendor LLM SDK.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const vendorSdks = ['@anthropic-ai/sdk', '@anthropic-ai/sdk/*', 'openai', 'openai/*'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'bench/out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/llm/providers/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: vendorSdks, message: 'Only src/llm/providers/<vendor>.ts may import a vendor LLM SDK.' }],
      }],
    },
  },
  {
    files: ['src/channels/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: vendorSdks, message: 'Channel adapters never import model SDKs.' },
          { group: ['**/agent/**', '**/agent', '**/llm/**', '**/llm', '**/tools/**', '**/session/**', '**/gateway/**', '**/gateway'], message: 'Channel adapters never import gateway, agent, model, tool or session code (DESIGN: layers).' },
        ],
      }],
    },
  },
);
