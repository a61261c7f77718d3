/**
 * Secret-looking variables the integration driver puts into code-server's environment, so that
 * the extension host inherits them as a user's editor would: the in-host suite asserts that
 * their values reach nothing a run writes.
 */
export const CANARIES = {
  ANTHROPIC_API_KEY: 'sk-ant-api03-CANARY-vscode-0123456789abcdef',
  MY_SECRET_TOKEN: 'tr-canary-vscode-SECRET-5a4b3c2d1e',
};
