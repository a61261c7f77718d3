import * as vscode from 'vscode';
import type { TreeRow } from '../core/run/views/treeRow';

/** A row of the sidebar's trees as the editor draws it; the caller adds what a click on it does. */
export function treeItemOf(row: TreeRow, collapsible: vscode.TreeItemCollapsibleState): vscode.TreeItem {
  const item = new vscode.TreeItem(row.label, collapsible);
  item.id = row.id;
  item.description = row.description;
  item.tooltip = row.tooltip;
  item.accessibilityInformation = { label: row.accessibleLabel };
  item.contextValue = row.contextValue;
  item.iconPath = new vscode.ThemeIcon(row.icon, row.color ? new vscode.ThemeColor(row.color) : undefined);
  return item;
}
