/** Control characters (`Cc`): line breaks, tabs, NUL, escape… */
const CONTROL = /\p{Cc}/u;

export const CONTROL_MESSAGE = 'must not contain control characters';

/**
 * What a person's name (`first_name`, `last_name`) must not hold beyond its length: control
 * characters. A name is written into mails and logs; a line break in it would write lines of the
 * requester's choosing there.
 */
export function personNameProblem(name: string): string | undefined {
  return CONTROL.test(name) ? CONTROL_MESSAGE : undefined;
}
