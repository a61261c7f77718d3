export { ScriptedModel, ScriptExhaustedError, type ScriptPosition, type ScriptStart } from './scriptedModel';
export { ModelScript, ScriptedAnswer } from './scriptSchema';
export { loadScriptedModel, scriptPathFor } from './loadScript';
export { scriptPosition } from './scriptPosition';
