/** esbuild bundles imported CSS into dist/webview.css. */
declare module '*.css';

/** Given to the webview by the editor; the tests give a stand-in. */
declare function acquireVsCodeApi(): {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
};
