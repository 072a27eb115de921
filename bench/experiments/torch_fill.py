# PyTorch writing 103 MB twice in one run, 1 and 2 threads: fill_ and copy_ from an expanded
# tensor (how far the host's memory bandwidth swings between runs seconds apart).
import torch, time
n,c,h,w=32,64,112,112
def t(fn):
    for _ in range(3): fn()
    ts=[]
    for _ in range(15):
        t0=time.perf_counter(); fn(); ts.append(time.perf_counter()-t0)
    ts.sort(); return ts[len(ts)//2]
nb=n*c*h*w*4
for th in (1,2):
    torch.set_num_threads(th)
    bb=torch.ones((1,64,1,1)); bo=torch.zeros((n,c,h,w))
    r=[]
    for name,fn in [("expand copy",lambda: bo.copy_(bb.expand(n,c,h,w))),("fill",lambda: bo.fill_(2.0))]:
        s=t(fn); r.append(f"{name} {nb/s/1e9:.1f} GB/s written")
    print(th, "threads:", "; ".join(r))
