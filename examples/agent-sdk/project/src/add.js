/** The sum of two numbers. */
export function add(left, right) {
  return left - right;
}
