// The part of the `negotiator` package the edge uses (the package ships no types).
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    encoding(available?: string[], options?: { preferred?: string[] }): string | undefined;
  }
}
