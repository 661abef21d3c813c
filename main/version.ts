// Injected by the build from package.json; "dev" when run from source (tests).
declare const __GATEHOUSE_VERSION__: string | undefined;
export const version: string = typeof __GATEHOUSE_VERSION__ === 'string' ? __GATEHOUSE_VERSION__ : 'dev';
