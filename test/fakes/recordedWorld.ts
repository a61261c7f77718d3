import { MemoryWorkspace } from './memoryWorkspace';
import type { Question } from './questions';
import { Recording, type AnswerOf, type RecordedOp } from './recording';

/**
 * A fixture's workspace in memory and what the real tools answered about it: the fakes of the
 * checkers ask here, with the workspace's candidate as it is when they are called.
 */
export class RecordedWorld {
  constructor(
    readonly recording: Recording,
    readonly workspace: MemoryWorkspace,
  ) {}

  static of(fixture: string): RecordedWorld {
    return new RecordedWorld(Recording.load(fixture), MemoryWorkspace.ofFixture(fixture));
  }

  get workspaceRoot(): string {
    return this.recording.file.workspaceRoot;
  }

  answer<Op extends RecordedOp>(q: Question<Op>): AnswerOf<Op> {
    return this.recording.answer(q.op, q.args, q.pure ? new Map() : this.workspace.candidate(), q.asked);
  }
}
