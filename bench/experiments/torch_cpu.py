# PyTorch on 1 thread, in the thread's CPU time: the broadcast, f32 <-> T(8,128) and a 64 MiB copy, as GB/s
# (read + written) per CPU-second, to set beside `EngineCpu.java` with -Dtensorbuf.copy.parallelism=1 on a
# host whose cores are oversubscribed. `python3 bench/experiments/torch_cpu.py [ROUNDS]`
import os, time, sys
os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
import torch
torch.set_num_threads(1)
n,c,h,w=32,64,112,112
bb=torch.ones((1,64,1,1)); bo=torch.zeros((n,c,h,w))
m=torch.ones((4096,4096)); t=torch.zeros((512,32,8,128))
t2=torch.ones((512,32,8,128)); m2=torch.zeros((4096,4096))
src=torch.ones(4096*4096); dst=torch.zeros(4096*4096)
cases=[("broadcast", n*c*h*w*8, lambda: bo.copy_(bb.expand(n,c,h,w))),
       ("to_T8x128", 4096*4096*8, lambda: t.copy_(m.reshape(512,8,32,128).permute(0,2,1,3))),
       ("T8x128_to", 4096*4096*8, lambda: m2.reshape(512,8,32,128).copy_(t2.permute(0,2,1,3))),
       ("copy64MiB", 4096*4096*8, lambda: dst.copy_(src))]
for r in range(int(sys.argv[1]) if len(sys.argv)>1 else 3):
    out=[]
    for name, nb, fn in cases:
        for _ in range(3): fn()
        ts=[]
        for _ in range(10):
            t0=time.thread_time(); fn(); ts.append(time.thread_time()-t0)
        ts.sort(); out.append(f"{name} {nb/ts[5]/1e9:.1f}")
    print("torch 1 thread, GB/s per CPU-second:", "; ".join(out), flush=True)
