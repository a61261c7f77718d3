/**
 * The server's one request beyond the protocol: check a ticket now and answer its findings and
 * rendered tests (the editor's Validate Ticket and Show Rendered Tests). With `types` false the
 * language service is not asked and nothing is published. The editor's client imports this file
 * and nothing else of the server (.dependency-cruiser.cjs).
 */
export const VALIDATE_REQUEST = 'ticketRunner/validate';

export interface ValidateParams {
  uri: string;
  types?: boolean;
}
