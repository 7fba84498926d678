// The PROJECT file: the one place tsop reads project facts from (init writes it, create api adds
// resources, generate and bundle read it). Stages: discover.ts finds the project root, file.ts
// parses and validates the YAML into a Project, edit.ts appends resources while keeping the user's
// comments and extra keys (yaml Document API), settings.ts keeps tsop's own settings in PROJECT's
// plugins section (and moves an earlier version's), names.ts holds the naming rules they share.
export {
  checkProjectAt,
  findProjectRoot,
  PROJECT_FILE,
  projectDir,
  readProject,
  readProjectFrom,
} from "./discover.js";
export { addResourceToProject, renderNewProject, updateResourceInProject } from "./edit.js";
export { checkProjectShape, emptyProjectError, parseProject } from "./file.js";
export * from "./names.js";
export type { Project, ProjectResource } from "./types.js";
export { LAYOUT } from "./types.js";
export { legacyKeys, migrateSettings, projectLayout, tsopSettings } from "./settings.js";
