export function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value)) {
    if (typeof member === 'object' && member !== null) deepFreeze(member as object);
  }
  return Object.freeze(value);
}
