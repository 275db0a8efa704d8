// ptfsh/strings — small string helpers for PTFs.
// import { greet } from "ptfsh/strings";

/** greet returns "Hello <name>!". */
export function greet(name) {
  return "Hello " + name + "!";
}
