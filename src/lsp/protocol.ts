/**
 * The server's one request beyond the protocol: check a ticket now and answer its findings and
 * rendered tests (the editor's Validate Ticket and Show Rendered Tests). With `types` false the
 * language service is not asked and nothing is published. Shared with the client by value:
 * the client imports no server code.
 */
export const VALIDATE_REQUEST = 'ticketRunner/validate';

export interface ValidateParams {
  uri: string;
  types?: boolean;
}
