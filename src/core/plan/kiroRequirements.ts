/** One acceptance criterion of Kiro's `requirements.md`, by the id tasks link it with (`1.2`). */
export interface RequirementCriterion {
  id: string;
  /** The EARS line: WHEN ... THEN the system SHALL ... */
  text: string;
  /** Its requirement's title and user story, for the Drafter. */
  requirement: string;
}

/**
 * Reads Kiro's `requirements.md`: `### Requirement N` headings (a title may follow), a
 * `**User Story:**` line, and under `#### Acceptance Criteria` numbered EARS lines; criterion 2
 * of requirement 1 is `1.2`, as tasks link it.
 */
export function parseKiroRequirements(text: string): Map<string, RequirementCriterion> {
  const out = new Map<string, RequirementCriterion>();
  let requirement: { n: string; title: string; story: string } | undefined;
  let inCriteria = false;
  for (const line of text.split(/\r?\n/)) {
    const heading = /^(#{1,6})\s+(.*\S)\s*$/.exec(line);
    if (heading) {
      const req = /^Requirement\s+(\d+)\b[:.\s-]*(.*)$/i.exec(heading[2]!);
      if (req) requirement = { n: req[1]!, title: req[2]!, story: '' };
      else if (heading[1]!.length <= 3) requirement = undefined;
      inCriteria = !req && /^Acceptance Criteria$/i.test(heading[2]!);
      continue;
    }
    if (!requirement) continue;
    const story = /^\s*\*\*User Story:?\*\*:?\s*(.*\S)/i.exec(line);
    if (story) requirement.story = story[1]!;
    const criterion = inCriteria ? /^\s*(\d+)\.\s+(.*\S)\s*$/.exec(line) : null;
    if (criterion)
      out.set(`${requirement.n}.${criterion[1]!}`, {
        id: `${requirement.n}.${criterion[1]!}`,
        text: criterion[2]!,
        requirement: [`Requirement ${requirement.n}${requirement.title ? `: ${requirement.title}` : ''}`, requirement.story]
          .filter(Boolean)
          .join('. '),
      });
  }
  return out;
}
