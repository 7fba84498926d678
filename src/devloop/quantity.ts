// Kubernetes resource quantities ("500m", "256Mi", "1e3") as numbers, for the downward API values
// (resourceFieldRef) the kubelet gives a container: ceil(quantity / divisor).
import { InvalidInputError } from "../common/errors.js";

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The value of a quantity; `where` names the field in the error. */
export function parseQuantity(text: string | number, where: string): number {
  if (typeof text === "number") return text;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]*))$/.exec(text.trim());
  const factor = match ? (match[2] ? 1 : SUFFIXES[match[3] ?? ""]) : undefined;
  if (!match || factor === undefined)
    throw new InvalidInputError(`${where}: "${text}" is not a Kubernetes quantity`, {
      hint: 'use a quantity such as "500m", "1", "256Mi" or "1G"',
    });
  return Number(match[1]) * (match[2] ? 10 ** Number(match[2].slice(1)) : factor);
}

/** ceil(value / divisor), as the kubelet turns a resource into a downward API value. */
export function divideQuantity(value: number, divisor: number): string {
  // Work in nano units so 0.1 + 0.2 style float noise never rounds 1 up to 2.
  const nano = Math.round(value * 1e9);
  const per = Math.round(divisor * 1e9);
  return String(Math.ceil(nano / per));
}
