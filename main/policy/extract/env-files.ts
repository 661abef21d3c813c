// The file names builtin.credentials.env-files protects wherever they are (`**` + `/.env`,
// `**` + `/.env.*`, not the templates): for the places that must find such files themselves
// (a repository's index, a project folder listed for hard links), not by matching a glob.

const ENV_NAME = /^\.env(\..+)?$/;
// Templates committed to repositories hold no secrets (the rule's block_except).
const ENV_TEMPLATE = /^\.env\.(example|sample|template)$/;

/** Is `name` (a file name, no folder) a protected .env file's name? */
export const isEnvName = (name: string): boolean => ENV_NAME.test(name) && !ENV_TEMPLATE.test(name);
