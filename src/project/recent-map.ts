/** Sets `key` as the most recent entry of `map` and drops the least recent ones past `capacity` (a Map keeps insertion order). */
export function setRecent<K, V>(map: Map<K, V>, key: K, value: V, capacity: number): V {
  map.delete(key);
  map.set(key, value);
  while (map.size > capacity) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
  return value;
}
