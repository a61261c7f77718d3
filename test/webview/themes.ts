import type { Page } from 'playwright-core';

/**
 * The colours VS Code gives a webview, as CSS variables on its html element, for the default
 * dark and light themes (Dark Modern and Light Modern): the variables the run view and the
 * @vscode-elements controls read. The accessibility check runs the page in each.
 */
export const THEMES = {
  dark: {
    kind: 'vscode-dark',
    vars: {
      'font-family': 'system-ui, sans-serif',
      'font-size': '13px',
      'editor-font-family': 'monospace',
      'editor-font-size': '14px',
      foreground: '#cccccc',
      'editor-background': '#1f1f1f',
      'editor-foreground': '#cccccc',
      descriptionForeground: '#9d9d9d',
      errorForeground: '#f85149',
      focusBorder: '#0078d4',
      'textLink-foreground': '#4daafc',
      'textLink-activeForeground': '#4daafc',
      'textCodeBlock-background': '#2b2b2b',
      'button-background': '#0078d4',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#026ec1',
      'button-secondaryBackground': '#313131',
      'button-secondaryForeground': '#cccccc',
      'button-secondaryHoverBackground': '#3c3c3c',
      'button-border': '#ffffff12',
      'badge-background': '#616161',
      'badge-foreground': '#f8f8f8',
      'input-background': '#313131',
      'input-foreground': '#cccccc',
      'input-border': '#3c3c3c',
      'input-placeholderForeground': '#989898',
      'editorWidget-background': '#202020',
      'panel-border': '#2b2b2b',
      'widget-border': '#313131',
      'editorWarning-foreground': '#cca700',
      'testing-iconPassed': '#73c991',
      'testing-iconFailed': '#f14c4c',
      'diffEditor-insertedLineBackground': '#9bb95533',
      'diffEditor-removedLineBackground': '#ff000033',
      'inputValidation-errorBackground': '#5a1d1d',
      'inputValidation-errorBorder': '#be1100',
      'progressBar-background': '#0078d4',
      'icon-foreground': '#cccccc',
      'sideBar-background': '#181818',
    },
  },
  light: {
    kind: 'vscode-light',
    vars: {
      'font-family': 'system-ui, sans-serif',
      'font-size': '13px',
      'editor-font-family': 'monospace',
      'editor-font-size': '14px',
      foreground: '#3b3b3b',
      'editor-background': '#ffffff',
      'editor-foreground': '#3b3b3b',
      descriptionForeground: '#595959',
      errorForeground: '#c4314b',
      focusBorder: '#005fb8',
      'textLink-foreground': '#005fb8',
      'textLink-activeForeground': '#005fb8',
      'textCodeBlock-background': '#f2f2f2',
      'button-background': '#005fb8',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#0258a8',
      'button-secondaryBackground': '#e5e5e5',
      'button-secondaryForeground': '#3b3b3b',
      'button-secondaryHoverBackground': '#cccccc',
      'button-border': '#0000001a',
      'badge-background': '#cccccc',
      'badge-foreground': '#3b3b3b',
      'input-background': '#ffffff',
      'input-foreground': '#3b3b3b',
      'input-border': '#cecece',
      'input-placeholderForeground': '#767676',
      'editorWidget-background': '#f8f8f8',
      'panel-border': '#e5e5e5',
      'widget-border': '#e5e5e5',
      // Light Modern's (the default light theme's) own: #895503 is the high-contrast light theme's.
      'editorWarning-foreground': '#bf8803',
      'testing-iconPassed': '#388a34',
      'testing-iconFailed': '#c72e0f',
      'diffEditor-insertedLineBackground': '#9bb95533',
      'diffEditor-removedLineBackground': '#ff000033',
      'inputValidation-errorBackground': '#f2dede',
      'inputValidation-errorBorder': '#be1100',
      'progressBar-background': '#005fb8',
      'icon-foreground': '#3b3b3b',
      'sideBar-background': '#f8f8f8',
    },
  },
} as const;

/** Puts a theme on the page the way VS Code does: the variables on html, the kind as the body's class. */
export async function applyTheme(page: Page, theme: keyof typeof THEMES): Promise<void> {
  const t = THEMES[theme];
  // Through the CSSOM, which the page's CSP allows, as VS Code's own style attribute is.
  await page.evaluate(
    ({ vars, kind }) => {
      for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(`--vscode-${k}`, v);
      document.body.classList.add(kind);
      document.body.dataset.vscodeThemeKind = kind;
    },
    { vars: t.vars, kind: t.kind },
  );
}
