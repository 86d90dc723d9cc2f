package lake

import "github.com/apache/arrow-go/v18/arrow/memory"

// memoryPool allocates the few arrays the lake builds itself.
var memoryPool = memory.DefaultAllocator
