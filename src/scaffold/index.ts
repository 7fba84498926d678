// Scaffolding: `tsop init` (init.ts: options → templates/init/** + package.json + PROJECT) and
// `tsop create api` (api.ts: group/version/kind → templates/api/**, marker inserts into
// src/main.ts, kustomization and PROJECT edits). Both build a plan of file actions that
// machinery.ts renders in memory, checks against each file's collision policy, then writes
// atomically in sorted order. resolve.ts fills init's missing values (prompts on a TTY only).
export { type CreateApiOptions, type CreateApiResult, createApi } from "./api.js";
export { defaultProjectName, type InitOptions, type InitResult, init } from "./init.js";
export { type CreateWebhookOptions, type CreateWebhookResult, createWebhook } from "./webhook.js";
export type { FileResult, FileStatus } from "./machinery.js";
export { messages } from "./messages.js";
export { type InitFlags, inquirerPrompter, type Prompter, resolveInitFlags } from "./resolve.js";
