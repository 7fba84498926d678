// What a file that is not a regular file or a directory is, for messages that refuse it (a FIFO
// would block a read forever; a device or socket is never input or output of tsop).
export interface FileTypeInfo {
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSymbolicLink(): boolean;
}

export function specialFileKind(info: FileTypeInfo): string {
  if (info.isSymbolicLink()) return "symbolic link";
  if (info.isFIFO()) return "FIFO";
  if (info.isSocket()) return "socket";
  if (info.isCharacterDevice()) return "character device";
  if (info.isBlockDevice()) return "block device";
  return "special file";
}
