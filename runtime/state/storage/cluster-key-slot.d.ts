// The package ships no types: the Redis Cluster hash slot (0-16383) of a key, honouring `{hash tags}`.
declare module "cluster-key-slot" {
  export default function calculateSlot(key: string | Buffer): number;
}
