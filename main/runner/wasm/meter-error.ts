/** A module Gatehouse will not run: its message says what in the module and what to change. */
export class MeterError extends Error {}
