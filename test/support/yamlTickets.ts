/**
 * BLOG-1 of the blog-api fixture written as YAML, as an author would: comments, plain scalars,
 * and the TypeScript of its test plan in block scalars, with no quoting. It must read as the
 * same ticket as `.tickets/BLOG-1.ticket.json`.
 */
export const BLOG1_YAML = `# BLOG-1, as YAML: the test plan's TypeScript needs no quoting.
id: BLOG-1
title: Reject perPage above 100 with a 400
description: >-
  GET /posts silently caps perPage at 100. Clients asked for an explicit error instead:
  a perPage above 100 must answer 400 with { error: 'perPage max is 100' }.
  Values up to 100 keep working.
scope:
  write: [src/handlers/posts.ts]
  read:
    - src/utils/pagination.ts
    - src/store/postStore.ts
acceptance:
  - id: AC1
    text: "perPage=500 answers 400 with { error: 'perPage max is 100' }"
  - id: AC2
    text: perPage=100 answers 200 with 100 posts
testPlan:
  files:
    - path: test/ticket/BLOG-1.test.ts
      suite: BLOG-1 listPosts perPage limit
      imports:
        - from: ../../src/handlers/posts
          names: [listPosts]
      cases:
        - name: rejects perPage above 100
          criterion: AC1
          arrange:
            - |-
              const res = listPosts({ query: { perPage: '500' } });
          expect:
            - kind: equal
              actual: res.status
              expected: "400"
            - kind: equal
              actual: res.body
              expected: |-
                { error: 'perPage max is 100' }
              mode: deep
        - name: accepts perPage of exactly 100
          criterion: AC2
          arrange:
            - |-
              const res = listPosts({ query: { perPage: '100' } });
          expect:
            - kind: equal
              actual: res.status
              expected: "200"
            - kind: equal
              actual: |-
                (res.body as { items: unknown[] }).items.length
              expected: "100"
`;
